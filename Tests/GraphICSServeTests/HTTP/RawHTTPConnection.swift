import Foundation

/// A plain TCP connection for the tests that need to see the wire: keep-alive, HEAD, limits, slow
/// clients. Blocking POSIX sockets with a receive timeout, so that no test can hang.
/// Used by one thread at a time (a test hands it to a reader thread and waits).
final class RawHTTPConnection: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// One response as read off the wire.
    struct Response {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: Data

        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    private let socket: Int32
    private var buffered = Data()

    /// Connects to `host` (an IPv4 or IPv6 literal) and `port`, from `source` (an IPv4 literal) if given.
    init(host: String = "127.0.0.1", port: UInt16, source: String? = nil, timeout: Int = 5) throws {
        let isIPv6 = host.contains(":")
        socket = Glibc.socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        do {
            if let source {
                try Self.withAddress(source, port: 0) { address, length in
                    guard bind(socket, address, length) == 0 else {
                        throw Failure(description: "bind \(source): \(String(cString: strerror(errno)))")
                    }
                }
            }
            try Self.withAddress(host, port: port) { address, length in
                guard connect(socket, address, length) == 0 else {
                    throw Failure(description: "connect \(host):\(port): \(String(cString: strerror(errno)))")
                }
            }
        } catch {
            close(socket)
            throw error
        }
    }

    deinit {
        close(socket)
    }

    /// Sends all of `bytes`.
    func send(_ bytes: Data) throws {
        try bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(socket, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                guard sent > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
                offset += sent
            }
        }
    }

    func send(_ text: String) throws {
        try send(Data(text.utf8))
    }

    /// Reads one response; `head` (the answer to a HEAD request) reads no body.
    func readResponse(head: Bool = false) throws -> Response {
        let separator = Data("\r\n\r\n".utf8)
        var found = buffered.range(of: separator)
        while found == nil {
            guard try fill() else { throw Failure(description: "the connection closed before a response") }
            found = buffered.range(of: separator)
        }
        guard let end = found else { throw Failure(description: "no header block") }
        let headerText = String(decoding: buffered[buffered.startIndex..<end.lowerBound], as: UTF8.self)
        buffered = Data(buffered[end.upperBound...])
        var lines = headerText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "not a status line: \(statusLine)")
        }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = Response(status: status, headers: headers, body: Data())
        let length = head ? 0 : Int(response.header("Content-Length") ?? "0") ?? 0
        while buffered.count < length {
            guard try fill() else { throw Failure(description: "the connection closed inside a body") }
        }
        response.body = Data(buffered.prefix(length))
        buffered = Data(buffered.dropFirst(length))
        return response
    }

    /// Whether the server closes the connection (or resets it) within the receive timeout, reading and
    /// dropping whatever it sends first.
    func closesByPeer() -> Bool {
        buffered = Data()
        while true {
            do {
                guard try fill() else { return true }
            } catch {
                return errno == ECONNRESET || errno == EPIPE
            }
        }
    }

    /// Everything received so far and not yet read as a response.
    var unread: Data { buffered }

    /// Reads what arrives; false at the end of the stream. Throws on a timeout or an error.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = recv(socket, &chunk, chunk.count, 0)
        if count > 0 {
            buffered.append(contentsOf: chunk[0..<count])
            return true
        }
        if count == 0 {
            return false
        }
        throw Failure(description: "recv: \(String(cString: strerror(errno)))")
    }

    private static func withAddress(
        _ host: String, port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Void
    ) throws {
        if host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { throw Failure(description: host) }
            try withUnsafePointer(to: &address) {
                try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    try body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw Failure(description: host) }
            try withUnsafePointer(to: &address) {
                try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    try body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }
}
