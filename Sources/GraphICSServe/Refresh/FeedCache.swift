import Foundation
import GraphICS
import GraphICSMirror
import ICalBridge

/// A feed's copy on disk, so that a restarted `serve` answers at once and reads only the mirror's changes
/// since (``MirrorCursor``): `<state dir>/feeds/<key>/` (key: the feed's name and a hash of its mailbox,
/// calendar and name) holds
/// - `events.json`: the events as Graph sent them, as one page (`{"value":[…]}`);
/// - `feed.ics`: the last body;
/// - `state.json`: the window and calendar id the events are for, a fingerprint of the events, the cursor
///   into the mirror, the settings and events the body was rendered from, the body's SHA-256 and
///   Last-Modified.
///
/// Each file is written atomically (``AtomicFile``), `state.json` last: it vouches for the
/// other two, so a copy interrupted between two writes is never taken for a whole one. Events that do not
/// match `state.json` are dropped (the next refresh reads the whole window); a body that does not match its
/// hash, or was rendered with other settings (another detail level), is never served.
///
/// The events are private: the folders are created `0700`. (A cache written before the mirror also held
/// the delta link; such a cache is read without it.)
struct FeedCache: Sendable {
    let directory: String

    init(stateDirectory: URL, target: FeedTarget) {
        let definition = target.definition
        let identity = [definition.user ?? "", definition.calendar ?? "", definition.name].joined(separator: "\u{0}")
        let key = definition.name + "-" + SHA256.hexDigest(Array(identity.utf8)).prefix(16)
        directory =
            stateDirectory.appendingPathComponent("feeds", isDirectory: true)
            .appendingPathComponent(key, isDirectory: true).path
    }

    /// What `state.json` holds.
    struct Record: Codable, Equatable {
        var calendarID: String?
        var windowStart: Int64
        var windowEnd: Int64
        /// ``FeedEvents/fingerprint`` of `events.json`.
        var events: String
        /// ``MirrorCursor`` of the events (absent in a cache written before the mirror).
        var cursor: String?
        /// ``FeedCache/settings(of:)`` of the body's rendering.
        var settings: String
        /// The fingerprint of the events the body was rendered from.
        var renderedFrom: String
        var bodySHA256: String
        /// Seconds since 1970.
        var lastModified: Int64
        var eventCount: Int
    }

    /// What a restart starts from.
    struct Loaded {
        /// The events and cursor, when they are whole and for this calendar.
        var events: FeedEvents?
        /// The last body, when it is whole and was rendered with the feed's current settings.
        var body: RenderedFeed?
        /// Whether `body` was rendered from `events` (else the next refresh renders again).
        var isCurrent: Bool
    }

    /// What the body depends on besides the events: the selection, the zone, the calendar's name and id.
    static func settings(of target: FeedTarget) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let selection = (try? encoder.encode(target.definition.selection)).map { String(decoding: $0, as: UTF8.self) }
        let parts = [selection ?? "?", target.zone.name, target.calendarName ?? "", target.calendarID ?? ""]
        return SHA256.hexDigest(Array(parts.joined(separator: "\u{0}").utf8))
    }

    /// Reads what the folder holds for `target`; nothing (no error) when it holds nothing usable.
    func load(for target: FeedTarget) -> Loaded {
        guard let data = read("state.json"), let record = try? JSONDecoder().decode(Record.self, from: data) else {
            return Loaded(events: nil, body: nil, isCurrent: false)
        }
        var events: FeedEvents?
        if record.calendarID == target.calendarID, let page = read("events.json"),
            let stored = FeedEvents.read(
                page: page, window: SyncWindow(start: record.windowStart, end: record.windowEnd),
                calendarID: record.calendarID, cursor: record.cursor.flatMap(MirrorCursor.init)),
            stored.fingerprint == record.events
        {
            events = stored
        }
        var body: RenderedFeed?
        if record.settings == Self.settings(of: target), let bytes = read("feed.ics"),
            SHA256.hexDigest(bytes) == record.bodySHA256
        {
            body = RenderedFeed(
                body: bytes, etag: FeedRenderer.etag(of: bytes),
                lastModified: Date(timeIntervalSince1970: TimeInterval(record.lastModified)),
                eventCount: record.eventCount)
        }
        return Loaded(
            events: events, body: body, isCurrent: events != nil && body != nil && record.renderedFrom == record.events)
    }

    /// Writes the events, the body when `writingBody` (the folder does not hold it yet), then the record that
    /// vouches for both.
    func save(events: FeedEvents, body: RenderedFeed, writingBody: Bool, target: FeedTarget) throws {
        try StateDirectory.prepare(directory)
        let fingerprint = events.fingerprint
        try AtomicFile.replace(directory + "/events.json", with: events.page())
        if writingBody {
            try AtomicFile.replace(directory + "/feed.ics", with: body.body)
        }
        let record = Record(
            calendarID: events.calendarID, windowStart: events.window.start, windowEnd: events.window.end,
            events: fingerprint, cursor: events.cursor?.description, settings: Self.settings(of: target),
            renderedFrom: fingerprint,
            bodySHA256: SHA256.hexDigest(body.body),
            lastModified: Int64(body.lastModified.timeIntervalSince1970.rounded(.down)), eventCount: body.eventCount)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try AtomicFile.replace(directory + "/state.json", with: try encoder.encode(record))
    }

    private func read(_ name: String) -> Data? {
        FileManager.default.contents(atPath: directory + "/" + name)
    }
}
