import Foundation
import GraphICS

/// The mailbox's time zone name as the last sync read it (`GET mailboxSettings`), kept in the state
/// directory for a day, so that a sync with nothing to do asks Graph one question (the delta link), not
/// two. One small file per account, `mailbox-<first 16 hex digits of the SHA-256 of the account>.zone`.
public struct MailboxZoneCache: Sendable {
    public let path: String
    /// How long a read zone is used before Graph is asked again.
    public var lifetime: TimeInterval = 86_400

    public init(stateDirectory: String, account: String) {
        let digest = SHA256.hexDigest(account.lowercased().utf8).prefix(16)
        path = (stateDirectory as NSString).appendingPathComponent("mailbox-\(digest).zone")
    }

    /// The stored name, unless it is missing, unreadable or older than ``lifetime``.
    public func fresh(now: Date = Date()) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let modified = attributes[.modificationDate] as? Date, now.timeIntervalSince(modified) < lifetime,
            let data = FileManager.default.contents(atPath: path)
        else { return nil }
        let name = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return name.isEmpty ? nil : name
    }

    /// Stores `name` (atomically); a failure only means Graph is asked again next time.
    public func store(_ name: String) {
        try? AtomicFile(path, permissions: .likeReplaced).write(Data((name + "\n").utf8))
    }
}
