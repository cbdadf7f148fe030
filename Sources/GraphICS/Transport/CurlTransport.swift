import Foundation
import ICalBridge
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// graph-ics's `HTTPTransport` over libcurl: blocking, safe to call from several threads, keep-alive.
///
/// Each `send` borrows an idle `CurlEasyHandle` from a small pool (or makes one), runs the transfer on
/// the calling thread and returns the handle afterwards; a handle keeps its connections, so requests to
/// the same host reuse one TCP/TLS connection instead of a new handshake each time. The pool is guarded
/// by a lock and holds at most `maxIdleHandles` handles; the rest are freed.
///
/// Before anything is sent the URL is checked: `https://` always, plain `http://` only to a loopback
/// host (`127.0.0.0/8`, `::1`, `localhost`), so tokens never travel in clear text. The transport never
/// retries (see `RetryPolicy`) and never follows redirects; every HTTP status is a response, failures
/// below HTTP throw `CurlError`. A transport given a ``RequestCancellation`` throws ``RequestCancelled``
/// for the requests under way once it is cancelled, and for every later one.
public final class CurlTransport: HTTPTransport, Sendable {
    /// The `User-Agent` graph-ics sends unless a request sets its own.
    public static let defaultUserAgent = "graph-ics/\(GraphICSVersion.version)"
    /// How many idle handles (and so idle connections) the pool keeps.
    public static let maxIdleHandles = 8

    /// Time allowed to establish a connection (TCP and TLS).
    public let connectTimeout: Duration
    /// Time allowed for a whole transfer when the request has no `timeout` of its own.
    public let defaultTimeout: Duration
    /// The largest response body accepted; a longer body stops the transfer with
    /// `CurlError.Code.responseTooLarge`.
    public let maxResponseBytes: Int
    /// The `User-Agent` header value.
    public let userAgent: String
    /// Ends the transfers under way and refuses later ones when cancelled (``RequestCancelled``); nil:
    /// requests run to their end or their timeout.
    public let cancellation: RequestCancellation?

    /// Idle handles; a handle taken out of the pool is used by one thread until it is put back.
    private let idleHandles = Mutex<[CurlEasyHandle]>([])

    /// Creates a transport with the given limits; TLS verification cannot be turned off.
    public init(
        connectTimeout: Duration = .seconds(10),
        defaultTimeout: Duration = .seconds(120),
        maxResponseBytes: Int = 64 << 20,
        userAgent: String = CurlTransport.defaultUserAgent,
        cancellation: RequestCancellation? = nil
    ) {
        self.connectTimeout = connectTimeout
        self.defaultTimeout = defaultTimeout
        self.maxResponseBytes = max(0, maxResponseBytes)
        self.userAgent = userAgent
        self.cancellation = cancellation
    }

    public func send(_ request: HTTPRequest) throws -> HTTPResponse {
        let (host, loopback) = try Self.checkURL(request.url)
        if cancellation?.isCancelled == true { throw RequestCancelled(host: host) }
        let handle = try checkOut()
        defer { checkIn(handle) }
        let options = CurlTransferOptions(
            connectTimeout: connectTimeout, timeout: defaultTimeout, maxResponseBytes: maxResponseBytes,
            userAgent: userAgent, cancellation: cancellation)
        return try handle.perform(request, host: host, loopback: loopback, options: options)
    }

    /// The number of handles waiting in the pool (for tests and diagnostics).
    public var idleHandleCount: Int {
        idleHandles.withLock { $0.count }
    }

    private func checkOut() throws -> CurlEasyHandle {
        if let pooled = idleHandles.withLock({ $0.popLast() }) {
            return pooled
        }
        return try CurlEasyHandle()
    }

    private func checkIn(_ handle: CurlEasyHandle) {
        idleHandles.withLock { idle in
            if idle.count < Self.maxIdleHandles { idle.append(handle) }
        }
    }

    // MARK: The URL rule

    /// Checks graph-ics's URL rule and returns the host (without IPv6 brackets) and whether it is loopback.
    ///
    /// Throws `CurlError.insecureURL` for `http://` to any other host, and an `invalidRequest` error for
    /// other schemes or a URL without a host.
    static func checkURL(_ url: URL) throws -> (host: String, loopback: Bool) {
        var host = url.host ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        guard !host.isEmpty else {
            throw CurlError.invalidRequest(host: "(no host)", "the URL has no host")
        }
        let loopback = isLoopback(host)
        switch url.scheme?.lowercased() {
        case "https":
            return (host, loopback)
        case "http":
            guard loopback else {
                throw CurlError.insecureURL(host)
            }
            return (host, loopback)
        default:
            throw CurlError.invalidRequest(host: host, "graph-ics sends requests over https:// only")
        }
    }

    /// Whether `host` names this machine: `localhost`, an IPv4 address in `127.0.0.0/8`, or `::1`
    /// (also written as the IPv4-mapped `::ffff:127.x.y.z`). Names are not resolved.
    public static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered == "localhost." {
            return true
        }
        var v4 = in_addr()
        if inet_pton(AF_INET, lowered, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, lowered, &v6) == 1 {
            let bytes = withUnsafeBytes(of: v6) { Array($0) }
            let loopbackV6: [UInt8] = Array(repeating: 0, count: 15) + [1]
            let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
            return bytes == loopbackV6 || (Array(bytes[0..<12]) == mappedPrefix && bytes[12] == 127)
        }
        return false
    }
}
