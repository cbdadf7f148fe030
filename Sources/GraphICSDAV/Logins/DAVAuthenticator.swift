import Foundation
import GraphICSServe
import Synchronization

/// Checks the Basic credentials of CalDAV requests against `dav.json` as it is on disk now.
///
/// - The file is `stat`ed on every request and read again when its device, inode, size or modification
///   time changed, so `dav add`, `dav remove` and `dav rotate` take effect for the next request without a
///   restart. A file that cannot be read refuses everyone until it can be (an old password must not keep
///   working because the new file is damaged).
/// - Login names are compared exactly. An unknown name is checked against a hash of nothing anyone has,
///   so the answer takes as long as for a known name with a wrong password.
/// - More than 10 failures within a minute for one (login name, client address) throttle that pair: its
///   further requests are not checked until fewer than 10 failures fall in the last minute. The client
///   address is the peer's, without its port; when the peer is loopback (a reverse proxy on this machine),
///   the last hop of `X-Forwarded-For`, the one that proxy added.
///
/// Never logs: credentials go nowhere but the comparison.
///
/// Thread-safety: all state is behind one mutex; any thread of the HTTP server may call it.
public final class DAVAuthenticator: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// The credentials are those of this login.
        case authenticated(DAVLogin)
        /// No `Authorization` field, or one of another scheme than Basic: ask for credentials (401).
        case missing
        /// Basic credentials that are malformed, of no login, or with the wrong password.
        case refused
        /// Too many failures lately for this login name from this address; nothing was checked.
        case throttled
    }

    /// Failures that throttle a (login name, client address) pair within ``failureWindow``.
    public static let failureLimit = 10
    /// The window ``failureLimit`` counts in.
    public static let failureWindow: TimeInterval = 60
    /// Pairs tracked at most; beyond, those without a failure in the window are forgotten first.
    static let trackedPairs = 10_000
    /// The hash an unknown login name is compared against (of no password anyone can send: 26 characters
    /// of base32 never hash to it by chance).
    static let dummyHash = DAVPassword.hash(DAVPassword.generate())

    private struct Pair: Hashable {
        var user: String
        var address: String
    }

    private struct State {
        var stamp: DAVLoginFileStamp?
        var loaded = false
        var logins: [String: DAVLogin] = [:]
        var ordered: [DAVLogin] = []
        var failures: [Pair: [Date]] = [:]
    }

    private let store: DAVLoginStore
    private let now: @Sendable () -> Date
    private let state = Mutex(State())

    public init(store: DAVLoginStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    /// Basic credentials of the request (`Authorization`), checked against dav.json as it is on disk now (re-read
    /// when its inode/size/mtime changed: `dav rotate` takes effect for the next request without a restart).
    /// More than 10 failures in a minute for one (login name, client address) -> .throttled (client address =
    /// the peer, or X-Forwarded-For's last hop when the peer is loopback).
    public func authenticate(_ request: HTTPServerRequest) -> Outcome {
        guard let field = request.header("Authorization") else { return .missing }
        let credentials: (user: String, password: String)
        switch Self.basicCredentials(field) {
        case .notBasic: return .missing
        case .malformed: credentials = ("", "")
        case .credentials(let user, let password): credentials = (user, password)
        }
        let pair = Pair(user: credentials.user, address: Self.clientAddress(request))
        let time = now()
        if isThrottled(pair, at: time) { return .throttled }
        let login = current().logins[credentials.user]
        // The comparison runs for an unknown name too, against a hash nobody's password has.
        let matches = DAVPassword.matches(credentials.password, hash: login?.passwordHash ?? Self.dummyHash)
        if let login, matches, !credentials.user.isEmpty {
            state.withLock { _ = $0.failures.removeValue(forKey: pair) }
            return .authenticated(login)
        }
        recordFailure(pair, at: time)
        return .refused
    }

    /// The logins as on disk now.
    public func logins() -> [DAVLogin] {
        current().ordered
    }

    // MARK: - dav.json

    /// The logins, read again when the file changed since the last look.
    private func current() -> (logins: [String: DAVLogin], ordered: [DAVLogin]) {
        // Stat before reading: a replacement between the two is seen as a change on the next request.
        let stamp = store.stamp()
        if let known = state.withLock({ state in
            state.loaded && state.stamp == stamp ? (state.logins, state.ordered) : nil
        }) {
            return known
        }
        let ordered = (try? store.load()) ?? []
        var logins: [String: DAVLogin] = [:]
        for login in ordered { logins[login.user] = login }
        state.withLock { state in
            state.stamp = stamp
            state.loaded = true
            state.logins = logins
            state.ordered = ordered
        }
        return (logins, ordered)
    }

    // MARK: - Throttling

    private func isThrottled(_ pair: Pair, at time: Date) -> Bool {
        state.withLock { state in
            guard let times = state.failures[pair] else { return false }
            return times.filter { time.timeIntervalSince($0) < Self.failureWindow }.count >= Self.failureLimit
        }
    }

    private func recordFailure(_ pair: Pair, at time: Date) {
        state.withLock { state in
            var times = state.failures[pair, default: []].filter { time.timeIntervalSince($0) < Self.failureWindow }
            times.append(time)
            state.failures[pair] = times
            guard state.failures.count > Self.trackedPairs else { return }
            state.failures = state.failures.filter { _, times in
                times.contains { time.timeIntervalSince($0) < Self.failureWindow }
            }
            // Still too many (a flood of names): forget the pairs with the fewest failures.
            if state.failures.count > Self.trackedPairs {
                let kept = state.failures.sorted { $0.value.count > $1.value.count }.prefix(Self.trackedPairs / 2)
                state.failures = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
            }
        }
    }

    // MARK: - Requests

    enum BasicCredentials: Equatable {
        case notBasic
        case malformed
        case credentials(user: String, password: String)
    }

    /// `Basic <base64 of user:password>` (RFC 7617): the scheme in any case, the user up to the first `:`
    /// (a login name has none; it may have `@`), the password after it. Padding may be left out.
    static func basicCredentials(_ field: String) -> BasicCredentials {
        let trimmed = field.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard let scheme = parts.first, scheme.lowercased() == "basic" else { return .notBasic }
        guard parts.count == 2 else { return .malformed }
        var encoded = parts[1].trimmingCharacters(in: .whitespaces)
        guard !encoded.isEmpty, encoded.count <= 1024 else { return .malformed }
        if encoded.utf8.count % 4 != 0 { encoded += String(repeating: "=", count: 4 - encoded.utf8.count % 4) }
        guard let data = Data(base64Encoded: encoded), let text = String(data: data, encoding: .utf8),
            let colon = text.firstIndex(of: ":")
        else { return .malformed }
        let user = String(text[..<colon])
        guard !user.isEmpty else { return .malformed }
        return .credentials(user: user, password: String(text[text.index(after: colon)...]))
    }

    /// The peer's address without its port; the last hop of `X-Forwarded-For` when the peer is loopback.
    static func clientAddress(_ request: HTTPServerRequest) -> String {
        let peer = host(of: request.remoteAddress)
        guard isLoopback(peer), let forwarded = request.header("X-Forwarded-For") else { return peer }
        let last = forwarded.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return last.isEmpty ? peer : host(of: last)
    }

    /// `127.0.0.1:54321` → `127.0.0.1`, `[::1]:54321` → `::1`; an address without a port stays as it is.
    static func host(of address: String) -> String {
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<close])
        }
        let colons = address.filter { $0 == ":" }.count
        if colons == 1, let colon = address.firstIndex(of: ":") { return String(address[..<colon]) }
        return address
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "::1" || host.hasPrefix("127.") || host.lowercased().hasPrefix("::ffff:127.")
    }
}
