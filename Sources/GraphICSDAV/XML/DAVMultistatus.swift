import Foundation

/// One `D:propstat`: a status and the properties it applies to.
public struct DAVPropstat: Sendable, Equatable {
    public var status: Int
    /// Each a property element with its value inside (empty for 404 ones).
    public var properties: [DAVElement]

    public init(status: Int, properties: [DAVElement]) {
        self.status = status
        self.properties = properties
    }
}

/// One `D:response` of a multistatus (RFC 4918 §14.24): an href and either propstats or a status.
public struct DAVResponse: Sendable, Equatable {
    /// Already percent-encoded by the caller; written escaped for XML only.
    public var href: String
    public var propstats: [DAVPropstat]
    /// A response with a status and no propstat (404 of a sync-collection deletion, of a multiget miss).
    public var status: Int?
    /// A `D:error` element (its children name the precondition).
    public var error: DAVElement?
    /// `D:responsedescription`.
    public var description: String?

    public init(
        href: String, propstats: [DAVPropstat] = [], status: Int? = nil, error: DAVElement? = nil,
        description: String? = nil
    ) {
        self.href = href
        self.propstats = propstats
        self.status = status
        self.error = error
        self.description = description
    }
}

/// A `207 Multi-Status` body (RFC 4918 §13, §14.16), with the `D:sync-token` of RFC 6578 §6.4 when set.
public struct DAVMultistatus: Sendable {
    public var responses: [DAVResponse]
    public var syncToken: String?

    public init(responses: [DAVResponse], syncToken: String? = nil) {
        self.responses = responses
        self.syncToken = syncToken
    }

    /// The document, written straight into a byte buffer:
    ///
    /// ```
    /// <D:multistatus>
    ///   <D:response>
    ///     <D:href>…</D:href>
    ///     <D:propstat><D:prop>…</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>…
    ///     or <D:status>…</D:status> (when `status` is set and there is no propstat)
    ///     <D:error>…</D:error> <D:responsedescription>…</D:responsedescription>
    ///   </D:response>…
    ///   <D:sync-token>…</D:sync-token>
    /// </D:multistatus>
    /// ```
    ///
    /// A response with both a status and propstats writes the propstats (RFC 4918 allows one form only).
    public func serialized() -> Data {
        var writer = DAVXMLWriter(capacity: 256 + responses.count * 512)
        let multistatus = DAVName.dav("multistatus")
        writer.startDocument(root: multistatus)
        for response in responses {
            writer.write(response)
        }
        if let syncToken {
            writer.element(.dav("sync-token"), text: syncToken)
        }
        writer.end(multistatus)
        return writer.finish()
    }
}

extension DAVXMLWriter {
    mutating func write(_ response: DAVResponse) {
        let responseName = DAVName.dav("response")
        start(responseName)
        element(.dav("href"), text: response.href)
        if response.propstats.isEmpty {
            element(.dav("status"), text: DAVStatus.line(response.status ?? 200))
        } else {
            for propstat in response.propstats {
                write(propstat)
            }
        }
        if let error = response.error { element(error) }
        if let description = response.description {
            element(.dav("responsedescription"), text: description)
        }
        end(responseName)
    }

    mutating func write(_ propstat: DAVPropstat) {
        let propstatName = DAVName.dav("propstat")
        let propName = DAVName.dav("prop")
        start(propstatName)
        if propstat.properties.isEmpty {
            start(propName, isEmpty: true)
        } else {
            start(propName)
            for property in propstat.properties { element(property) }
            end(propName)
        }
        element(.dav("status"), text: DAVStatus.line(propstat.status))
        end(propstatName)
    }
}

/// HTTP status lines as `D:status` holds them (RFC 4918 §14.28).
public enum DAVStatus {
    /// `HTTP/1.1 404 Not Found`; a code without a known reason phrase gets none (`HTTP/1.1 599 `).
    public static func line(_ code: Int) -> String {
        switch code {
        case 200: "HTTP/1.1 200 OK"
        case 404: "HTTP/1.1 404 Not Found"
        case 403: "HTTP/1.1 403 Forbidden"
        default: "HTTP/1.1 \(code) \(reason(code))"
        }
    }

    /// The reason phrase of RFC 9110 §15 and RFC 4918 §11 for `code`, or "" for a code neither names.
    public static func reason(_ code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 207: "Multi-Status"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 423: "Locked"
        case 424: "Failed Dependency"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 507: "Insufficient Storage"
        default: ""
        }
    }
}

/// The body of a refused request that names a precondition or postcondition (RFC 4918 §16).
public enum DAVErrorBody {
    /// `<D:error>` holding `<condition/>` and, with a description, a `<D:responsedescription>` (RFC 4918 §16).
    public static func document(_ condition: DAVName, description: String?) -> Data {
        var children = [DAVElement(condition)]
        if let description {
            children.append(DAVElement(.dav("responsedescription"), text: description))
        }
        return DAVXML.serialize(DAVElement(.dav("error"), children: children))
    }
}
