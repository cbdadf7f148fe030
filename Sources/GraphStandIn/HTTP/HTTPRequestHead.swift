// The request line and header fields of one HTTP/1.1 request, parsed from the bytes up to the blank line.
import Foundation

/// A parsed request head: method, target, version and header fields, with the framing facts they imply.
///
/// Parsing is strict where a lenient reading could mislead a test: a request line must have exactly three
/// parts and name HTTP/1.1 or HTTP/1.0, the target must be origin-form or absolute-form, and a header
/// field must have a colon and a name without white space. Anything else is `HTTPConnection.Malformed`
/// (400).
struct HTTPRequestHead {
    var method: String
    /// The request target as sent (path and query, or an absolute URL).
    var target: String
    var isHTTP10: Bool
    /// Header fields in arrival order, values trimmed.
    var headers: [(name: String, value: String)]

    /// Parses the head's bytes (request line, header fields, the blank line that ends them).
    init(_ bytes: [UInt8]) throws {
        // Split on LF bytes: as Swift Characters, "\r\n" is one grapheme and would not split on "\n".
        var lines: [String] = []
        for rawLine in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            let trimmed = rawLine.last == 0x0D ? rawLine.dropLast() : rawLine
            guard let line = String(bytes: trimmed, encoding: .utf8) else {
                throw HTTPConnection.Malformed(status: 400, reason: "request head is not UTF-8")
            }
            lines.append(line)
        }
        while lines.last == "" { lines.removeLast() }
        guard let requestLine = lines.first else {
            throw HTTPConnection.Malformed(status: 400, reason: "empty request")
        }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
            parts[0].allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }),
            parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0"
        else { throw HTTPConnection.Malformed(status: 400, reason: "malformed request line") }
        method = String(parts[0])
        target = String(parts[1])
        guard target.hasPrefix("/") || target.hasPrefix("http://") || target.hasPrefix("https://") else {
            throw HTTPConnection.Malformed(status: 400, reason: "malformed request target")
        }
        isHTTP10 = parts[2] == "HTTP/1.0"
        headers = try lines.dropFirst().map(Self.headerField)
    }

    /// One `Name: value` line.
    private static func headerField(_ line: String) throws -> (name: String, value: String) {
        guard let colon = line.firstIndex(of: ":") else {
            throw HTTPConnection.Malformed(status: 400, reason: "malformed header field")
        }
        let name = String(line[..<colon])
        guard !name.isEmpty, !name.contains(" "), !name.contains("\t") else {
            throw HTTPConnection.Malformed(status: 400, reason: "malformed header field name")
        }
        return (name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    /// The first value of a header field, matched case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Whether the connection closes after this request: HTTP/1.0 unless `keep-alive`, HTTP/1.1 on `close`.
    var wantsClose: Bool {
        let connection = header("Connection")?.lowercased() ?? ""
        return isHTTP10 ? !connection.contains("keep-alive") : connection.contains("close")
    }

    /// Whether the body comes chunked (`Transfer-Encoding: chunked` wins over `Content-Length`).
    var isChunked: Bool {
        header("Transfer-Encoding")?.lowercased().contains("chunked") ?? false
    }

    /// Whether the client waits for `100 Continue` before sending its body.
    var expectsContinue: Bool {
        header("Expect")?.lowercased() == "100-continue"
    }

    /// The `Content-Length` of a body that is not chunked (0 without one); 400 when unreadable, 413 when over
    /// `LoopbackHTTPServer.maxBodyBytes`.
    func contentLength() throws -> Int {
        guard !isChunked, let raw = header("Content-Length") else { return 0 }
        guard let length = Int(raw), length >= 0 else {
            throw HTTPConnection.Malformed(status: 400, reason: "bad Content-Length")
        }
        guard length <= LoopbackHTTPServer.maxBodyBytes else {
            throw HTTPConnection.Malformed(status: 413, reason: "request body too large")
        }
        return length
    }
}
