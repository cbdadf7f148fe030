import Foundation

/// The request headers that decide between a full answer and 304 Not Modified (RFC 9110 §13.1), and
/// whether the client takes gzip (§12.5.3).
enum RequestHeaders {
    /// Whether `If-None-Match` (a list of entity tags, or `*`) names `etag`; entity tags are compared
    /// weakly, as §13.1.2 asks for this header (`W/"x"` matches `"x"`).
    static func noneMatch(_ header: String, matches etag: String) -> Bool {
        // A calendar app revalidating sends back the one ETag it was given: no list to read.
        if header == etag { return true }
        let wanted = opaque(etag)
        for item in header.split(separator: ",") {
            let tag = trimmed(item)
            if tag == "*" || opaque(tag) == wanted { return true }
        }
        return false
    }

    /// `text` without the spaces and tabs around it (RFC 9110's optional whitespace in lists).
    static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }

    private static func opaque(_ tag: some StringProtocol) -> Substring {
        let text = Substring(tag)
        return text.hasPrefix("W/") ? text.dropFirst(2) : text
    }

    /// Whether a request is answered 304: `If-None-Match` when given (`If-Modified-Since` is then ignored),
    /// else `If-Modified-Since` no earlier than `lastModified` (to the second).
    static func notModified(_ request: HTTPServerRequest, etag: String, lastModified: Date) -> Bool {
        if let tags = request.header("If-None-Match") { return noneMatch(tags, matches: etag) }
        guard let text = request.header("If-Modified-Since"), let since = HTTPDate.parse(text) else { return false }
        return lastModified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
    }

    /// Whether `Accept-Encoding` allows gzip: `gzip` (or `x-gzip`) with a q-value above 0, else `*` above 0
    /// when gzip is not named. No header, or `gzip;q=0`: no.
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        var wildcard: Bool?
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";").map { trimmed($0).lowercased() }
            guard let coding = parts.first else { continue }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if coding == "gzip" || coding == "x-gzip" { return quality > 0 }
            if coding == "*" { wildcard = quality > 0 }
        }
        return wildcard ?? false
    }
}
