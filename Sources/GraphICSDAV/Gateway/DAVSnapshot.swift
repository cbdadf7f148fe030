import Foundation

/// What one calendar serves at one instant: immutable, swapped whole after each refresh or write, so that
/// every read answers from one consistent state without a lock.
final class DAVSnapshot: Sendable {
    let items: [DAVItem]
    /// Name → index in `items`.
    let index: [String: Int]
    /// UID → name.
    let byUID: [String: String]
    /// Deletions still reported to sync-collection: name → sequence.
    let removed: [String: Int64]
    let generation: String
    let sequence: Int64
    let floor: Int64
    /// When the last refresh ended; nil before the first.
    let refreshed: Date?

    init(
        items: [DAVItem], removed: [String: Int64], generation: String, sequence: Int64, floor: Int64,
        refreshed: Date?
    ) {
        let sorted = items.sorted { $0.name < $1.name }
        self.items = sorted
        var index: [String: Int] = [:]
        var byUID: [String: String] = [:]
        for (position, item) in sorted.enumerated() {
            index[item.name] = position
            byUID[item.uid] = item.name
        }
        self.index = index
        self.byUID = byUID
        self.removed = removed
        self.generation = generation
        self.sequence = sequence
        self.floor = floor
        self.refreshed = refreshed
    }

    func item(named name: String) -> DAVItem? {
        index[name].map { items[$0] }
    }

    /// `CS:getctag`: changes whenever anything in the calendar changes.
    var ctag: String { "\"\(generation)-\(sequence)\"" }

    /// `DAV:sync-token`: a URI (Evolution drops a token without `:` or `/`).
    var syncToken: String { DAVSyncToken(generation: generation, sequence: sequence).description }
}

/// A sync-collection token: `http://graph-ics.invalid/sync/<generation>/<sequence>`.
struct DAVSyncToken: Sendable, Equatable, CustomStringConvertible {
    static let prefix = "http://graph-ics.invalid/sync/"
    var generation: String
    var sequence: Int64

    init(generation: String, sequence: Int64) {
        self.generation = generation
        self.sequence = sequence
    }

    init?(_ text: String) {
        guard text.hasPrefix(Self.prefix) else { return nil }
        let parts = text.dropFirst(Self.prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, let sequence = Int64(parts[1]), sequence >= 0 else { return nil }
        generation = String(parts[0])
        self.sequence = sequence
    }

    var description: String { Self.prefix + generation + "/" + String(sequence) }
}
