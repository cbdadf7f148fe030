import Foundation
import GraphICS
import GraphICSMirror
import ICalBridge

/// A feed's copy of its calendar: every event of its window as the mirror (``CalendarMirror``) last gave it,
/// by id, with where the feed's next read of the mirror starts.
struct FeedEvents: Sendable, Equatable {
    /// The event's JSON object, exactly as Graph sent it.
    private(set) var raw: [String: Data] = [:]
    /// What tells one version of an event from another: Graph's change key, else a hash of its bytes.
    private(set) var versions: [String: String] = [:]
    /// The feed's window the events are for.
    var window: SyncWindow
    /// The calendar's id (nil: the default calendar), so that a cache of another calendar is never used.
    var calendarID: String?
    /// Where the feed's next read of the mirror starts; nil: it reads the whole window.
    var cursor: MirrorCursor?

    init(window: SyncWindow, calendarID: String?, cursor: MirrorCursor? = nil) {
        self.window = window
        self.calendarID = calendarID
        self.cursor = cursor
    }

    var count: Int { raw.count }

    /// Adds the event, or replaces the version held. Returns whether that changed the version held (Graph
    /// reports a change again when a round is resumed from the same link).
    @discardableResult
    mutating func store(id: String, changeKey: String?, raw bytes: Data) -> Bool {
        let version = CalendarMirror.version(of: MirrorEvent(id: id, changeKey: changeKey, raw: bytes))
        raw[id] = bytes
        return versions.updateValue(version, forKey: id) != version
    }

    /// Drops the event (deleted, or moved out of the window). Returns whether it was held.
    @discardableResult
    mutating func remove(id: String) -> Bool {
        raw[id] = nil
        return versions.removeValue(forKey: id) != nil
    }

    /// Whether `other` holds the same events in the same versions.
    func holdsTheSameEvents(as other: FeedEvents?) -> Bool {
        other.map { $0.versions == versions } ?? false
    }

    /// A hash of the ids and versions held: equal fingerprints mean the same events in the same versions,
    /// so the body rendered from them is the same.
    var fingerprint: String {
        var hash = SHA256()
        for id in versions.keys.sorted() {
            hash.update(Array(id.utf8) + [0] + Array((versions[id] ?? "").utf8) + [10])
        }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// The events as one Graph page, `{"value":[…]}` ordered by id: what the renderer reads, and what the
    /// disk cache keeps.
    func page() -> Data {
        var page = Data("{\"value\":[".utf8)
        page.reserveCapacity(raw.values.reduce(64) { $0 + $1.count + 1 })
        for (index, id) in raw.keys.sorted().enumerated() {
            if index > 0 { page.append(UInt8(ascii: ",")) }
            if let bytes = raw[id] { page.append(bytes) }
        }
        page.append(contentsOf: Array("]}".utf8))
        return page
    }

    /// Reads a page ``page()`` wrote (or any Graph page of events): nil when it is not one.
    static func read(page: Data, window: SyncWindow, calendarID: String?, cursor: MirrorCursor?) -> FeedEvents? {
        guard let entries = GraphPage.entries(in: page, fields: ["id", "changeKey"]) else { return nil }
        var events = FeedEvents(window: window, calendarID: calendarID, cursor: cursor)
        for entry in entries where !entry.isRemoved {
            guard let id = entry.fields["id"] else { return nil }
            events.store(id: id, changeKey: entry.fields["changeKey"], raw: entry.raw)
        }
        return events
    }
}
