import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The tests' one HTTP/1.1 client over a plain TCP socket, for the tests that need to see the wire: every
/// byte of an answer (no client that decodes gzip or drops a HEAD's headers), keep-alive, garbage, limits,
/// slow readers. Blocking POSIX sockets with receive and send timeouts, so that no test can hang. Used by one
/// thread at a time (a test hands it to a reader thread and waits).
public final class RawHTTPConnection: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// One response as read off the wire.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: Data

        public init(status: Int, headers: [(name: String, value: String)], body: Data) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// The first header named `name` (any case).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    private let socket: Int32
    private var buffered = Data()

    /// Connects to `host` (an IPv4 or IPv6 literal) and `port`, from `source` (an IPv4 literal) if given;
    /// `receiveBuffer` makes the socket's receive buffer that small (a slow reader).
    public init(
        host: String = "127.0.0.1", port: Int, source: String? = nil, timeout: Int = 5, receiveBuffer: Int32? = nil
    ) throws {
        let isIPv6 = host.contains(":")
        socket = Glibc.socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        do {
            if let source {
                try Self.withAddress(source, port: 0) { address, length in
                    guard bind(socket, address, length) == 0 else {
                        throw Failure(description: "bind \(source): \(String(cString: strerror(errno)))")
                    }
                }
            }
            try Self.withAddress(host, port: UInt16(truncatingIfNeeded: port)) { address, length in
                guard connect(socket, address, length) == 0 else {
                    throw Failure(description: "connect \(host):\(port): \(String(cString: strerror(errno)))")
                }
            }
        } catch {
            close(socket)
            throw error
        }
    }

    /// ``init(host:port:source:timeout:receiveBuffer:)`` with the port as a server reports it.
    public convenience init(
        host: String = "127.0.0.1", port: UInt16, source: String? = nil, timeout: Int = 5,
        receiveBuffer: Int32? = nil
    ) throws {
        try self.init(host: host, port: Int(port), source: source, timeout: timeout, receiveBuffer: receiveBuffer)
    }

    deinit {
        close(socket)
    }

    /// A request's head (`Host: 127.0.0.1`, then `headers`, a `Content-Length` when there is a body of
    /// `bodyLength` bytes, `Connection: close` when `close`), ended by its empty line.
    public static func head(
        method: String, path: String, headers: [(String, String)] = [], bodyLength: Int? = nil, close: Bool = true
    ) -> String {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let bodyLength { text += "Content-Length: \(bodyLength)\r\n" }
        if close { text += "Connection: close\r\n" }
        return text + "\r\n"
    }

    /// One request on a new connection to 127.0.0.1 (`Connection: close`), its answer read whole.
    public static func request(
        port: Int, _ method: String, _ path: String, headers: [(String, String)] = [], body: Data? = nil,
        timeout: Int = 5
    ) throws -> Response {
        let connection = try RawHTTPConnection(port: port, timeout: timeout)
        try connection.send(method, path, headers: headers, body: body, close: true)
        return try connection.readResponse(head: method == "HEAD")
    }

    /// Sends all of `bytes`.
    public func send(_ bytes: Data) throws {
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

    public func send(_ text: String) throws {
        try send(Data(text.utf8))
    }

    /// Sends a request: its ``head(method:path:headers:bodyLength:close:)``, then `body`.
    public func send(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: Data? = nil, close: Bool = false
    ) throws {
        let head = Self.head(method: method, path: path, headers: headers, bodyLength: body?.count, close: close)
        try send(Data(head.utf8) + (body ?? Data()))
    }

    /// Reads one response: the head, then `Content-Length` bytes (none for the answer to a HEAD request,
    /// `head`, and none for a 304).
    public func readResponse(head: Bool = false) throws -> Response {
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
        let length = head || status == 304 ? 0 : Int(response.header("Content-Length") ?? "0") ?? 0
        while buffered.count < length {
            guard try fill() else { throw Failure(description: "the connection closed inside a body") }
        }
        response.body = Data(buffered.prefix(length))
        buffered = Data(buffered.dropFirst(length))
        return response
    }

    /// Whether the server closes the connection (or resets it) within the receive timeout, reading and
    /// dropping whatever it sends first.
    public func closesByPeer() -> Bool {
        buffered = Data()
        while true {
            do {
                guard try fill() else { return true }
            } catch {
                return errno == ECONNRESET || errno == EPIPE
            }
        }
    }

    /// Whether nothing is left unread and the next read finds no more bytes (the server closed the
    /// connection, or sent nothing within the receive timeout).
    public func isClosedByPeer() -> Bool {
        buffered.isEmpty && (try? fill()) != true
    }

    /// Everything received so far and not yet read as a response.
    public var unread: Data { buffered }

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
        func pass<Address>(_ address: Address) throws {
            try withUnsafePointer(to: address) {
                try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    try body($0, socklen_t(MemoryLayout<Address>.size))
                }
            }
        }
        if host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { throw Failure(description: host) }
            try pass(address)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw Failure(description: host) }
            try pass(address)
        }
    }
}
