// HTTPConnection's writing side: the status line and header fields (Content-Length and Connection are the
// server's), whole responses, and send(2) without SIGPIPE.
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension HTTPConnection {

    func head(of response: LoopbackHTTPServer.Response, close: Bool, contentLength: Int) -> [UInt8] {
        var text = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\n"
        for (name, value) in response.headers {
            let lower = name.lowercased()
            if lower == "content-length" || lower == "connection" || lower == "transfer-encoding" { continue }
            text += "\(name): \(value)\r\n"
        }
        if response.status != 204 && response.status != 304 && !(100..<200).contains(response.status) {
            text += "Content-Length: \(contentLength)\r\n"
        }
        if close { text += "Connection: close\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    func serialize(_ response: LoopbackHTTPServer.Response, close: Bool) -> [UInt8] {
        let hasBody = response.status != 204 && response.status != 304
        var bytes = head(of: response, close: close, contentLength: hasBody ? response.body.count : 0)
        if hasBody { bytes += response.body }
        return bytes
    }

    /// Writes all bytes; false when the peer is gone. Never raises SIGPIPE.
    func write(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return send(fd, base + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                sent += count
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 412: "Precondition Failed"
        case 413: "Payload Too Large"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status"
        }
    }
}
