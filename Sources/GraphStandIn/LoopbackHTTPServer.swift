// Stands in for the HTTP/1.1 front end of Microsoft Graph and the identity platform: a small server on
// 127.0.0.1 that graph-ics's tests start themselves (the HTTPBin pattern), with fault injection for the
// transport's failure paths. Graph semantics live in GraphStandIn; this file only speaks HTTP.
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An HTTP/1.1 server on a loopback ephemeral port, serving each request through one handler closure.
///
/// The server binds `127.0.0.1:0` and starts accepting at once; the accept loop runs on its own thread and
/// each connection gets a thread of its own, so handlers may block (delays, latency) without stalling other
/// connections. Connections are kept alive until the client sends `Connection: close` or closes; request
/// bodies may come with `Content-Length` or chunked, and `Expect: 100-continue` is answered. Malformed
/// requests are answered with 400 and the connection is closed.
///
/// Thread-safety: every public member may be used from any thread; the counters are read under a lock.
/// `stop()` closes the listener and every open connection without waiting for handler threads. The server
/// runs until `stop()` is called (its threads keep it alive), so tests stop it when done.
public final class LoopbackHTTPServer: @unchecked Sendable {
    /// One parsed request as the handler sees it.
    public struct Request: Sendable {
        /// The request method as sent (`GET`, `POST`, …).
        public var method: String
        /// The raw request target, path plus query, exactly as it arrived (`/v1.0/me/calendarView?$top=10`).
        public var target: String
        /// The percent-decoded path without the query.
        public var path: String
        /// Query parameters, names and values percent-decoded (`+` reads as a space); the last one wins.
        public var query: [String: String]
        /// Header fields in arrival order, names as written.
        public var headers: [(name: String, value: String)]
        /// The request body (de-chunked); empty when there is none.
        public var body: Data
        /// Which connection the request came on: equal numbers mean the same (kept-alive) connection.
        public var connectionID: Int
        /// When the request head was read.
        public var receivedAt: Date

        /// A request from its parts; `path` and `query` are derived from `target`.
        public init(
            method: String,
            target: String,
            headers: [(name: String, value: String)] = [],
            body: Data = Data(),
            connectionID: Int = 0,
            receivedAt: Date = Date()
        ) {
            self.method = method
            self.target = target
            let (path, query) = Self.split(target: target)
            self.path = path
            self.query = query
            self.headers = headers
            self.body = body
            self.connectionID = connectionID
            self.receivedAt = receivedAt
        }

        /// The first value of a header field, matched case-insensitively.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// Splits a request target into its decoded path and decoded query parameters.
        static func split(target: String) -> (path: String, query: [String: String]) {
            var rawPath = target
            var rawQuery = ""
            if let mark = target.firstIndex(of: "?") {
                rawPath = String(target[..<mark])
                rawQuery = String(target[target.index(after: mark)...])
            }
            // An absolute-form target (`http://host/path`) is reduced to its path.
            if rawPath.hasPrefix("http://") || rawPath.hasPrefix("https://"),
                let schemeEnd = rawPath.range(of: "://")
            {
                let rest = rawPath[schemeEnd.upperBound...]
                rawPath = rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
            }
            let path = rawPath.removingPercentEncoding ?? rawPath
            return (path, decodeQuery(rawQuery))
        }

        /// Decodes `a=1&b=x%20y` form-style: `+` is a space, percent escapes decoded, the last name wins.
        static func decodeQuery(_ raw: String) -> [String: String] {
            var result: [String: String] = [:]
            for pair in raw.split(separator: "&", omittingEmptySubsequences: true) {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = decodeComponent(String(parts[0]))
                let value = parts.count > 1 ? decodeComponent(String(parts[1])) : ""
                result[name] = value
            }
            return result
        }

        static func decodeComponent(_ raw: String) -> String {
            let spaced = raw.replacingOccurrences(of: "+", with: " ")
            return spaced.removingPercentEncoding ?? spaced
        }
    }

    /// One response to write. `Content-Length` is always computed by the server.
    public struct Response: Sendable {
        /// The status code; the reason phrase is the server's.
        public var status: Int
        /// Header fields to write (`Content-Length`, `Connection` and `Transfer-Encoding` are the server's).
        public var headers: [(name: String, value: String)]
        /// The whole body (not written for 204 and 304).
        public var body: Data

        /// A response from its parts.
        public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// A JSON response: `object` serialised with JSONSerialization, `Content-Type: application/json`.
        ///
        /// An object JSONSerialization cannot write yields a 500 with a plain-text explanation, so a test
        /// mistake shows up as a failing request instead of a crash.
        public static func json(_ status: Int, _ object: Any) -> Response {
            guard JSONSerialization.isValidJSONObject(object),
                let body = try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])
            else {
                return text(500, "stand-in handler returned a value that is not JSON")
            }
            return Response(
                status: status, headers: [("Content-Type", "application/json; charset=utf-8")], body: body)
        }

        /// A plain-text response.
        public static func text(_ status: Int, _ text: String) -> Response {
            Response(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data(text.utf8))
        }

        /// The first value of a header field, matched case-insensitively.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// What the server does with one request: answer it, or one of the faults the transport must survive.
    public enum Action: Sendable {
        /// Write this response (the connection stays open unless the request asked to close it).
        case respond(Response)
        /// Wait, then write the response; the request counts as in flight while waiting.
        case delayed(Duration, Response)
        /// Close the connection without writing anything (the client sees an empty reply or a reset).
        case closeConnection
        /// Write these bytes verbatim, then close the connection.
        case raw(Data)
        /// Write the head with the full `Content-Length`, then only the first `keepingBytes` body bytes, then
        /// close: the client sees a partial transfer.
        case truncated(Response, keepingBytes: Int)
    }

    /// The port the server listens on (127.0.0.1).
    public let port: Int

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private let handler: @Sendable (Request) -> Action
    private let listener: Int32
    private let lock = NSLock()
    private var stopped = false
    private var openConnections: Set<Int32> = []
    private var nextConnectionID = 0
    private var counters = (requests: 0, inFlight: 0, maxInFlight: 0)

    /// Largest request head (request line plus header fields) the server reads before answering 431.
    static let maxHeadBytes = 64 * 1024
    /// Largest request body the server accepts before answering 413.
    static let maxBodyBytes = 64 * 1024 * 1024

    /// Binds 127.0.0.1 on an ephemeral port and starts serving at once.
    ///
    /// - Parameter handler: called on a connection's thread for every request; it may block.
    /// - Throws: `LoopbackHTTPServer.SocketError` when the socket cannot be created, bound or listened on.
    public init(handler: @escaping @Sendable (Request) -> Action) throws {
        self.handler = handler
        let fd = socket(AF_INET, Self.streamType, 0)
        guard fd >= 0 else { throw SocketError(call: "socket", code: errno) }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw SocketError(call: "bind", code: code)
        }
        guard listen(fd, 128) == 0 else {
            let code = errno
            close(fd)
            throw SocketError(call: "listen", code: code)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            close(fd)
            throw SocketError(call: "getsockname", code: code)
        }
        listener = fd
        port = Int(UInt16(bigEndian: actual.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "LoopbackHTTPServer.accept"
        thread.start()
    }

    deinit {
        stop()
    }

    /// A socket call that failed while starting the server.
    public struct SocketError: Error, CustomStringConvertible {
        /// The socket call that failed (`socket`, `bind`, `listen`, `getsockname`).
        public var call: String
        /// Its `errno`.
        public var code: Int32
        /// The call and `strerror`'s text.
        public var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    // MARK: Counters

    /// How many complete requests have been read so far (faulted ones included).
    public var requestCount: Int { lock.withLock { counters.requests } }
    /// How many requests are being handled right now (including those waiting in a delay).
    public var inFlight: Int { lock.withLock { counters.inFlight } }
    /// The most requests that were ever being handled at the same moment.
    public var maxInFlight: Int { lock.withLock { counters.maxInFlight } }

    /// Stops accepting, closes the listener and shuts every open connection down.
    ///
    /// Threads are not joined: a handler that is still running finishes on its own and its response is
    /// dropped. Calling `stop()` more than once is harmless.
    public func stop() {
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            // Wakes the accept loop, which closes the listener itself: closing it here could hand its number
            // to a socket another thread opens while the loop is about to call accept() again.
            _ = shutdown(listener, Int32(SHUT_RDWR))
            for fd in openConnections {
                _ = shutdown(fd, Int32(SHUT_RDWR))
            }
        }
    }

    var isStopped: Bool { lock.withLock { stopped } }

    // MARK: Accepting

    #if canImport(Glibc)
        private static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
        private static let streamType = SOCK_STREAM
    #endif

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                let code = errno
                if isStopped || code == EINVAL || code == EBADF { return }
                // Interrupted, aborted by the peer, or out of descriptors for a moment: keep accepting.
                if code != EINTR { usleep(1000) }
                continue
            }
            let connectionID: Int? = lock.withLock {
                if stopped { return nil }
                openConnections.insert(fd)
                nextConnectionID += 1
                return nextConnectionID
            }
            guard let connectionID else {
                close(fd)
                return
            }
            var yes: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            let thread = Thread { [self] in
                let connection = Connection(fd: fd, id: connectionID, server: self)
                connection.serve()
                lock.withLock {
                    openConnections.remove(fd)
                    close(fd)
                }
            }
            thread.name = "LoopbackHTTPServer.connection.\(connectionID)"
            thread.start()
        }
    }

    // MARK: Bookkeeping used by connections

    func requestStarted() {
        lock.withLock {
            counters.requests += 1
            counters.inFlight += 1
            counters.maxInFlight = max(counters.maxInFlight, counters.inFlight)
        }
    }

    func requestFinished() {
        lock.withLock { counters.inFlight -= 1 }
    }

    func handle(_ request: Request) -> Action {
        handler(request)
    }

    /// Sleeps for `duration` in short slices, returning early once the server is stopped.
    func pause(_ duration: Duration) {
        let deadline = ContinuousClock.now + duration
        while !isStopped {
            let left = deadline - ContinuousClock.now
            if left <= .zero { return }
            let slice = min(left, .milliseconds(10))
            let (seconds, attoseconds) = slice.components
            let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
            usleep(useconds_t(max(micros, 1)))
        }
    }
}

// MARK: - One connection

/// Reads requests from one accepted socket and writes the handler's answers, until either side closes.
private final class Connection {
    let fd: Int32
    let id: Int
    let server: LoopbackHTTPServer
    /// Bytes read but not consumed yet (the start of the next request on a kept-alive connection).
    var buffer: [UInt8] = []
    var readOffset = 0

    init(fd: Int32, id: Int, server: LoopbackHTTPServer) {
        self.fd = fd
        self.id = id
        self.server = server
    }

    /// A request that could not be read: answer with this status, then close.
    struct Malformed: Error {
        var status: Int
        var reason: String
    }

    /// The peer closed (or the server stopped) before a request was complete.
    struct Closed: Error {}

    func serve() {
        while !server.isStopped {
            let request: LoopbackHTTPServer.Request
            let wantsClose: Bool
            do {
                guard let head = try readHead() else { return }
                (request, wantsClose) = try readRequest(head: head)
            } catch let error as Malformed {
                let response = LoopbackHTTPServer.Response.text(error.status, error.reason)
                _ = write(serialize(response, close: true))
                return
            } catch {
                return
            }
            server.requestStarted()
            let keepOpen = perform(server.handle(request), requestWantsClose: wantsClose)
            server.requestFinished()
            if !keepOpen { return }
        }
    }

    /// Carries out one action; returns whether the connection may serve another request.
    func perform(_ action: LoopbackHTTPServer.Action, requestWantsClose: Bool) -> Bool {
        switch action {
        case .respond(let response):
            let close = requestWantsClose || wantsClose(response)
            return write(serialize(response, close: close)) && !close
        case .delayed(let duration, let response):
            server.pause(duration)
            if server.isStopped { return false }
            let close = requestWantsClose || wantsClose(response)
            return write(serialize(response, close: close)) && !close
        case .closeConnection:
            return false
        case .raw(let bytes):
            _ = write(Array(bytes))
            return false
        case .truncated(let response, let keepingBytes):
            var bytes = head(of: response, close: true, contentLength: response.body.count)
            bytes += response.body.prefix(max(0, min(keepingBytes, response.body.count)))
            _ = write(bytes)
            return false
        }
    }

    func wantsClose(_ response: LoopbackHTTPServer.Response) -> Bool {
        response.header("Connection")?.lowercased().contains("close") ?? false
    }

    // MARK: Reading

    /// Fills the buffer with at least one more byte; false when the peer closed or reading failed.
    func fill() -> Bool {
        if readOffset > 0 && readOffset == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readOffset = 0
        } else if readOffset > 256 * 1024 {
            buffer.removeFirst(readOffset)
            readOffset = 0
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer += chunk[0..<count]
                return true
            }
            if count < 0 && errno == EINTR { continue }
            return false
        }
    }

    /// Reads up to and including the blank line ending the head; nil when the peer closed between requests.
    func readHead() throws -> [UInt8]? {
        // Where to resume the search, relative to readOffset (fill() may move the buffer's contents).
        var searched = 0
        while true {
            if let end = findHeadEnd(from: readOffset + searched) {
                let head = Array(buffer[readOffset..<end])
                readOffset = end
                return head
            }
            if buffer.count - readOffset > LoopbackHTTPServer.maxHeadBytes {
                throw Malformed(status: 431, reason: "request head too large")
            }
            searched = max(0, buffer.count - readOffset - 3)
            let hadBytes = buffer.count > readOffset
            guard fill() else {
                if hadBytes { throw Closed() }
                return nil
            }
        }
    }

    /// The index just past `\r\n\r\n` (or a bare `\n\n`), searching from `start`.
    func findHeadEnd(from start: Int) -> Int? {
        var index = max(start, readOffset)
        while index < buffer.count {
            if buffer[index] == 0x0A {
                if index + 1 < buffer.count && buffer[index + 1] == 0x0A { return index + 2 }
                if index + 2 < buffer.count && buffer[index + 1] == 0x0D && buffer[index + 2] == 0x0A {
                    return index + 3
                }
            }
            index += 1
        }
        return nil
    }

    /// Reads exactly `count` bytes after the head.
    func readBytes(_ count: Int) throws -> [UInt8] {
        while buffer.count - readOffset < count {
            guard fill() else { throw Closed() }
        }
        let bytes = Array(buffer[readOffset..<readOffset + count])
        readOffset += count
        return bytes
    }

    /// Reads one line ending in LF (CR stripped).
    func readLine() throws -> String {
        while true {
            if let newline = buffer[readOffset...].firstIndex(of: 0x0A) {
                var lineBytes = buffer[readOffset..<newline]
                if lineBytes.last == 0x0D { lineBytes = lineBytes.dropLast() }
                readOffset = newline + 1
                guard let line = String(bytes: lineBytes, encoding: .utf8) else {
                    throw Malformed(status: 400, reason: "chunk line is not text")
                }
                return line
            }
            if buffer.count - readOffset > 8 * 1024 {
                throw Malformed(status: 400, reason: "chunk line too long")
            }
            guard fill() else { throw Closed() }
        }
    }

    func readRequest(head: [UInt8]) throws -> (LoopbackHTTPServer.Request, close: Bool) {
        let receivedAt = Date()
        // Split on LF bytes: as Swift Characters, "\r\n" is one grapheme and would not split on "\n".
        var lines: [String] = []
        for rawLine in head.split(separator: 0x0A, omittingEmptySubsequences: false) {
            let trimmed = rawLine.last == 0x0D ? rawLine.dropLast() : rawLine
            guard let line = String(bytes: trimmed, encoding: .utf8) else {
                throw Malformed(status: 400, reason: "request head is not UTF-8")
            }
            lines.append(line)
        }
        while lines.last == "" { lines.removeLast() }
        guard let requestLine = lines.first else { throw Malformed(status: 400, reason: "empty request") }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
            parts[0].allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }),
            parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0"
        else { throw Malformed(status: 400, reason: "malformed request line") }
        let method = String(parts[0])
        let target = String(parts[1])
        guard target.hasPrefix("/") || target.hasPrefix("http://") || target.hasPrefix("https://") else {
            throw Malformed(status: 400, reason: "malformed request target")
        }
        let http10 = parts[2] == "HTTP/1.0"

        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else {
                throw Malformed(status: 400, reason: "malformed header field")
            }
            let name = String(line[..<colon])
            guard !name.isEmpty, !name.contains(" "), !name.contains("\t") else {
                throw Malformed(status: 400, reason: "malformed header field name")
            }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.append((name, value))
        }
        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        let connectionHeader = header("Connection")?.lowercased() ?? ""
        let close = http10 ? !connectionHeader.contains("keep-alive") : connectionHeader.contains("close")

        let chunked = header("Transfer-Encoding")?.lowercased().contains("chunked") ?? false
        var contentLength = 0
        if !chunked, let raw = header("Content-Length") {
            guard let length = Int(raw), length >= 0 else {
                throw Malformed(status: 400, reason: "bad Content-Length")
            }
            guard length <= LoopbackHTTPServer.maxBodyBytes else {
                throw Malformed(status: 413, reason: "request body too large")
            }
            contentLength = length
        }
        let expectsContinue = header("Expect")?.lowercased() == "100-continue"
        if expectsContinue && (chunked || contentLength > 0) && buffer.count == readOffset {
            guard write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { throw Closed() }
        }

        var body: [UInt8] = []
        if chunked {
            body = try readChunkedBody()
        } else if contentLength > 0 {
            body = try readBytes(contentLength)
        }
        let request = LoopbackHTTPServer.Request(
            method: method, target: target, headers: headers, body: Data(body), connectionID: id,
            receivedAt: receivedAt)
        return (request, close)
    }

    func readChunkedBody() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeLine = try readLine()
            let sizeText = sizeLine.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw Malformed(status: 400, reason: "bad chunk size")
            }
            if size == 0 {
                // Trailer fields, if any, up to the blank line.
                while try !readLine().isEmpty {}
                return body
            }
            guard body.count + size <= LoopbackHTTPServer.maxBodyBytes else {
                throw Malformed(status: 413, reason: "request body too large")
            }
            body += try readBytes(size)
            guard try readLine().isEmpty else { throw Malformed(status: 400, reason: "chunk not followed by CRLF") }
        }
    }

    // MARK: Writing

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
