// Stands in for the HTTP/1.1 front end of Microsoft Graph and the identity platform: a small server on
// 127.0.0.1 that graph-ics's tests start themselves (the HTTPBin pattern), with fault injection for the
// transport's failure paths. Graph semantics live in GraphStandIn; the files in HTTP/ only speak HTTP.
import Foundation
import Synchronization

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
/// Thread-safety: every public member may be used from any thread; the bookkeeping (stopped, open
/// connections, counters) sits in one `Mutex`.
/// `stop()` closes the listener and every open connection without waiting for handler threads. The server
/// runs until `stop()` is called (its threads keep it alive), so tests stop it when done.
public final class LoopbackHTTPServer: Sendable {
    /// The port the server listens on (127.0.0.1).
    public let port: Int

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private let handler: @Sendable (Request) -> Action
    private let listener: Int32
    private let bookkeeping = Mutex(Bookkeeping())

    /// What the accept loop, the connections and `stop()` share.
    private struct Bookkeeping {
        var stopped = false
        var openConnections: Set<Int32> = []
        var nextConnectionID = 0
        var requests = 0
        var inFlight = 0
        var maxInFlight = 0
    }

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
    public var requestCount: Int { bookkeeping.withLock { $0.requests } }
    /// How many requests are being handled right now (including those waiting in a delay).
    public var inFlight: Int { bookkeeping.withLock { $0.inFlight } }
    /// The most requests that were ever being handled at the same moment.
    public var maxInFlight: Int { bookkeeping.withLock { $0.maxInFlight } }

    /// Stops accepting, closes the listener and shuts every open connection down.
    ///
    /// Threads are not joined: a handler that is still running finishes on its own and its response is
    /// dropped. Calling `stop()` more than once is harmless.
    public func stop() {
        bookkeeping.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            // Wakes the accept loop, which closes the listener itself: closing it here could hand its number
            // to a socket another thread opens while the loop is about to call accept() again.
            _ = shutdown(listener, Int32(SHUT_RDWR))
            for fd in state.openConnections {
                _ = shutdown(fd, Int32(SHUT_RDWR))
            }
        }
    }

    var isStopped: Bool { bookkeeping.withLock { $0.stopped } }

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
            let connectionID: Int? = bookkeeping.withLock { state in
                if state.stopped { return nil }
                state.openConnections.insert(fd)
                state.nextConnectionID += 1
                return state.nextConnectionID
            }
            guard let connectionID else {
                close(fd)
                return
            }
            var yes: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            let thread = Thread { [self] in
                let connection = HTTPConnection(fd: fd, id: connectionID, server: self)
                connection.serve()
                bookkeeping.withLock { state in
                    state.openConnections.remove(fd)
                    close(fd)
                }
            }
            thread.name = "LoopbackHTTPServer.connection.\(connectionID)"
            thread.start()
        }
    }

    // MARK: Bookkeeping used by connections

    func requestStarted() {
        bookkeeping.withLock { state in
            state.requests += 1
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
        }
    }

    func requestFinished() {
        bookkeeping.withLock { $0.inFlight -= 1 }
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
