import Foundation
import GraphICS

/// Who a given bearer token (`GRAPH_ICS_ACCESS_TOKEN`) signs in, as the last sync read it from `GET /me`,
/// kept in the state directory so that a sync with nothing to do asks Graph one question (the delta link),
/// not two: cron jobs and CI run with such a token and no saved sign-in to remember the name.
///
/// One small file per token, `user-<first 16 hex digits of the SHA-256 of the token>.upn`, holding the user
/// name and when to stop trusting it: the token's expiry when the token is a JWT whose payload says (`exp`),
/// else a day after it was read. The token itself is never stored. A token Graph refuses (401) removes the
/// file.
public struct SignedInUserCache: Sendable {
    public let path: String
    /// How long a name is kept when the token does not say when it expires.
    public static let lifetime: TimeInterval = 86_400
    private let expiry: Date?

    /// The cache for `token` in `stateDirectory`; `now` is when a name stored now was read.
    public init(stateDirectory: String, token: String) {
        let digest = SHA256.hexDigest(token.utf8).prefix(16)
        path = (stateDirectory as NSString).appendingPathComponent("user-\(digest).upn")
        expiry = Self.expiry(ofJWT: token)
    }

    /// The stored name, unless it is missing, unreadable or past its time.
    public func fresh(now: Date = Date()) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        guard lines.count == 2, let until = TimeInterval(lines[1]), now.timeIntervalSince1970 < until,
            !lines[0].isEmpty
        else { return nil }
        return lines[0]
    }

    /// Stores `name` (atomically, mode 0600); a failure only means Graph is asked again next time.
    public func store(_ name: String, now: Date = Date()) {
        guard !name.contains("\n") else { return }
        let until = (expiry ?? now.addingTimeInterval(Self.lifetime)).timeIntervalSince1970
        let text = name + "\n" + String(Int64(until)) + "\n"
        try? AtomicFile(path).write(Data(text.utf8))
    }

    /// Forgets the name (Graph refused the token).
    public func remove() {
        _ = unlink(path)
    }

    /// The `exp` claim of a JWT (`header.payload.signature`, base64url), nil when `token` is not one.
    static func expiry(ofJWT token: String) -> Date? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var payload = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        guard let data = Data(base64Encoded: payload),
            let claims = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let exp = claims["exp"] as? NSNumber
        else { return nil }
        return Date(timeIntervalSince1970: exp.doubleValue)
    }
}
