import Foundation
import Synchronization

/// Tells the user, once per wait, that graph-ics waits before trying a request again:
/// `retrying in 4 s (2/6): Graph answered 503`, `retrying in 1 s (3/6): cannot reach 127.0.0.1:9`.
///
/// Several threads of one client often wait at once (a `Retry-After` holds them all); a wait that begins
/// while an earlier told one has not ended is not told again. A host that cannot be reached is named
/// once: the waits after it, for the same reason, are not told (the final error names it again).
public final class RetryNotice: Sendable {
    private let tell: @Sendable (String) -> Void
    private struct Told {
        /// When the last wait that was told ends.
        var until: ContinuousClock.Instant?
        var reason: String?
    }
    private let told = Mutex(Told())

    public init(_ tell: @escaping @Sendable (String) -> Void) {
        self.tell = tell
    }

    /// Before a wait of `delay` ahead of try `next` of `limit`, for `reason`.
    func waiting(_ delay: Duration, before next: Int, of limit: Int, because reason: String) {
        let now = ContinuousClock.now
        let tells = told.withLock { told -> Bool in
            if let until = told.until, now < until { return false }
            if reason.hasPrefix("cannot reach"), told.reason == reason { return false }
            told = Told(until: now.advanced(by: delay), reason: reason)
            return true
        }
        if tells { tell("retrying in \(Self.seconds(delay)) (\(next)/\(limit)): \(reason)") }
    }

    /// `4 s`, `0.5 s`: whole seconds from 10 s on, else to a tenth (never `0 s`).
    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        if value >= 10 { return "\(Int(value.rounded())) s" }
        let tenths = max(1, Int((value * 10).rounded()))
        return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
    }

    /// Why the last try failed, in a few words.
    static func reason(_ url: URL, response: HTTPResponse?, failure: (any Error)?) -> String {
        if let response { return "Graph answered \(response.status)" }
        let place = hostAndPort(of: url)
        switch (failure as? CurlError)?.code {
        case .couldNotConnect: return "cannot reach \(place)"
        case .timedOut: return "\(place) did not answer in time"
        case .connectionDropped: return "the connection to \(place) broke"
        default: return "the request to \(place) failed"
        }
    }

    /// `graph.microsoft.com:443`, `127.0.0.1:8080`.
    static func hostAndPort(of url: URL) -> String {
        let host = url.host ?? "?"
        let port = url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443)
        return (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    static func hostAndPort(of request: HTTPRequest) -> String {
        hostAndPort(of: request.url)
    }
}
