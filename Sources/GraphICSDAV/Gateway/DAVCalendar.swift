import Foundation
import GraphICS
import GraphICSMirror
import GraphICSSync
import ICalBridge
import Synchronization

/// A calendar as Graph lists it, and where the gateway serves it.
public struct DAVCalendarInfo: Sendable, Equatable {
    public var id: String
    public var name: String
    /// `#RRGGBB`, or nil when the user chose none.
    public var color: String?
    public var canEdit: Bool
    public var isDefault: Bool

    public init(id: String, name: String, color: String?, canEdit: Bool, isDefault: Bool) {
        self.id = id
        self.name = name
        self.color = color
        self.canEdit = canEdit
        self.isDefault = isDefault
        key = String(SHA256.hexDigest(id.utf8).prefix(16))
    }

    public init(_ calendar: GraphCalendar) {
        let color = calendar.hexColor.flatMap { $0.isEmpty ? nil : $0 }
        self.init(
            id: calendar.id, name: calendar.name ?? calendar.id, color: color, canEdit: calendar.canEdit ?? true,
            isDefault: calendar.isDefaultCalendar ?? false)
    }

    /// The collection's path segment: 16 hex of the SHA-256 of the calendar's id (never its display name,
    /// which the user can change).
    public let key: String

    var mirrorCalendar: MirrorCalendar { isDefault ? .primary : .other(id: id) }
}

/// One calendar served to one login: the items it lists, brought up to date from the calendar's mirror (a new
/// consumer of it, `dav:<login>:<key>`), kept on disk (``DAVCalendarStore``) and published as an immutable
/// ``DAVSnapshot`` that reads answer from without a lock.
///
/// Refreshes and writes run one at a time (`work`'s lock); reads never wait for them.
final class DAVCalendar: Sendable {
    let info: DAVCalendarInfo
    let login: DAVLogin
    /// Nil while the account has no session: the calendar is answered from its store, and refreshes and
    /// writes fail.
    let client: GraphClient?
    /// The mailbox's user principal name: the mirror's key, shared with sync and the feeds.
    let mailbox: String
    let storePath: String
    let stateDirectory: String
    let exportOptions: ExportOptions
    let log: @Sendable (String) -> Void

    private let published: Mutex<DAVSnapshot>
    private let work: Mutex<Working?>
    /// What the login set with PROPPATCH.
    private let properties: Mutex<[String: String]>
    /// When the last refresh failed (for throttling rounds while Graph is down).
    private let failure = Mutex<(at: Date, message: String)?>(nil)

    /// The store and the mirror, opened on first use; used only under `work`'s lock.
    final class Working: @unchecked Sendable {
        let store: DAVCalendarStore
        let mirror: CalendarMirror
        init(store: DAVCalendarStore, mirror: CalendarMirror) {
            self.store = store
            self.mirror = mirror
        }
    }

    init(
        info: DAVCalendarInfo, login: DAVLogin, mailbox: String, client: GraphClient?, stateDirectory: String,
        exportOptions: ExportOptions = ExportOptions(), log: @escaping @Sendable (String) -> Void
    ) {
        self.info = info
        self.login = login
        self.mailbox = mailbox
        self.client = client
        self.stateDirectory = stateDirectory
        self.exportOptions = exportOptions
        self.log = log
        let digest = SHA256.hexDigest((login.user + "\n" + info.id).utf8).prefix(16)
        storePath = ((stateDirectory as NSString).appendingPathComponent("dav") as NSString)
            .appendingPathComponent("\(digest).sqlite")
        var loaded = DAVSnapshot(items: [], removed: [:], generation: "", sequence: 0, floor: 0, refreshed: nil)
        var opened: Working?
        var kept: [String: String] = [:]
        if FileManager.default.fileExists(atPath: storePath), let client,
            let working = try? Self.open(storePath, stateDirectory, mailbox, info, client),
            let snapshot = try? Self.snapshot(of: working.store)
        {
            loaded = snapshot
            opened = working
            kept = (try? working.store.keptProperties()) ?? [:]
        } else if FileManager.default.fileExists(atPath: storePath),
            let store = try? DAVCalendarStore(path: storePath), let snapshot = try? Self.snapshot(of: store)
        {
            loaded = snapshot
            kept = (try? store.keptProperties()) ?? [:]
        }
        properties = Mutex(kept)
        published = Mutex(loaded)
        work = Mutex(opened)
    }

    func keptProperty(_ key: String) -> String? {
        properties.withLock { $0[key] }
    }

    /// Sets (or, with nil, removes) what the login set with PROPPATCH, all at once.
    func setKeptProperties(_ changes: [(String, String?)]) throws {
        try withWork { working in
            try working.store.database.transaction {
                for (key, value) in changes { try working.store.setKeptProperty(key, value) }
            }
        }
        properties.withLock { values in
            for (key, value) in changes { values[key] = value }
        }
    }

    var consumer: String { "dav:\(login.user):\(info.key)" }

    /// What reads answer from now.
    var snapshot: DAVSnapshot { published.withLock { $0 } }

    /// The last refresh's failure, if the last refresh failed.
    var lastFailure: (at: Date, message: String)? { failure.withLock { $0 } }

    /// The login's window: from `--past` days before today's midnight (UTC) to `--future` days after it.
    static func window(_ login: DAVLogin, now: Date) -> SyncWindow {
        let seconds = Int64(now.timeIntervalSince1970)
        let midnight = seconds - ((seconds % 86_400) + 86_400) % 86_400
        return SyncWindow(
            start: midnight - Int64(login.pastDays) * 86_400, end: midnight + Int64(login.futureDays + 1) * 86_400)
    }

    private static func open(
        _ path: String, _ stateDirectory: String, _ mailbox: String, _ info: DAVCalendarInfo, _ client: GraphClient
    ) throws -> Working {
        let store = try DAVCalendarStore(path: path)
        let mirror = CalendarMirror(
            directory: stateDirectory, account: mailbox, calendar: info.mirrorCalendar, client: client)
        return Working(store: store, mirror: mirror)
    }

    private static func snapshot(of store: DAVCalendarStore) throws -> DAVSnapshot {
        let meta = try store.meta()
        var removed: [String: Int64] = [:]
        for (name, sequence) in try store.removals() { removed[name] = sequence }
        return DAVSnapshot(
            items: try store.items(), removed: removed, generation: meta.generation, sequence: meta.sequence,
            floor: meta.floor,
            refreshed: meta.refreshed > 0 ? Date(timeIntervalSince1970: TimeInterval(meta.refreshed)) : nil)
    }

    /// Runs `body` with the store and mirror, one caller at a time.
    func withWork<T>(_ body: (Working) throws -> T) throws -> T {
        try work.withLock { working in
            if working == nil {
                guard let client else { throw DAVGatewayError.noSession }
                working = try Self.open(storePath, stateDirectory, mailbox, info, client)
            }
            guard let working else { throw DAVGatewayError("the calendar's store cannot be opened") }
            return try body(working)
        }
    }

    /// Publishes what the store holds now.
    func publish(_ working: Working) throws {
        let snapshot = try Self.snapshot(of: working.store)
        published.withLock { $0 = snapshot }
    }

    // MARK: Refresh

    /// One round: the mirror's changes since this calendar's cursor (one Graph request on the primary calendar
    /// when nothing changed), applied to the items, written and published.
    func refresh(now: Date = Date()) throws {
        do {
            try withWork { working in
                try refresh(working, now: now)
                try publish(working)
            }
            failure.withLock { $0 = nil }
        } catch {
            failure.withLock { $0 = (now, "\(error)") }
            throw error
        }
    }

    /// The item a changed or new Graph event or series becomes.
    private struct Rendered {
        var source: PullItemSource
        var eventIDs: [String]
        var master: Data?
    }

    /// One round applied to the store (not published). `pending` are items a write just made or changed:
    /// the round renders them with their name, UID and kept properties, as it renders every item, so that a
    /// client's next read gives the same bytes (and ETag) as later rounds will. Returns the Graph ids of the
    /// items the round rendered.
    @discardableResult
    func refresh(_ working: Working, now: Date, pending: [DAVItem] = []) throws -> Set<String> {
        let store = working.store
        var meta = try store.meta()
        let window = Self.window(login, now: now)
        let read = try working.mirror.read(consumer: consumer, window: window, since: meta.cursor, now: now)
        let current = snapshot
        var byGraphID: [String: DAVItem] = [:]
        var byEventID: [String: String] = [:]
        for item in current.items + pending {
            byGraphID[item.graphID] = item
            for id in item.eventIDs { byEventID[id] = item.graphID }
        }
        var rendered = Set<String>()
        let pendingByID = Dictionary(pending.map { ($0.graphID, $0) }, uniquingKeysWith: { _, last in last })
        var sources: [String: PullItemSource] = [:]
        var order: [String] = []
        var gone = Set<String>()
        switch read.kind {
        case .whole:
            for source in DeltaEntryShape.group(read.events) {
                sources[source.graphID] = source
                order.append(source.graphID)
            }
            for item in current.items where !item.outside && sources[item.graphID] == nil {
                gone.insert(item.graphID)
            }
        case .changes:
            var removedEvents = Set<String>()
            var changed: [String: [MirrorEvent]] = [:]
            for event in read.events {
                let key = DeltaEntryShape(event.raw).seriesMasterID ?? event.id
                if changed[key] == nil { order.append(key) }
                changed[key, default: []].append(event)
            }
            for id in read.removedIDs {
                guard let key = byEventID[id], let item = byGraphID[key] else { continue }
                if item.isSeries {
                    removedEvents.insert(id)
                    if changed[key] == nil {
                        order.append(key)
                        changed[key] = []
                    }
                } else if changed[key] == nil {
                    gone.insert(key)
                }
            }
            for key in order {
                var events = changed[key] ?? []
                if let item = byGraphID[key], item.isSeries {
                    let fresh = Set(events.map(\.id))
                    for id in item.eventIDs where !fresh.contains(id) && !removedEvents.contains(id) {
                        if let stored = try working.mirror.storedEvent(id: id) { events.append(stored) }
                    }
                }
                guard let source = DeltaEntryShape.group(events).first else {
                    gone.insert(key)
                    continue
                }
                sources[key] = source
            }
            order = order.filter { sources[$0] != nil }
        }
        // An item the round no longer shows is deleted only when Graph says so; else it left the window and
        // stays listed (vdirsyncer would upload it again if it vanished).
        guard let client else { throw DAVGatewayError.noSession }
        var deleted = Set<String>()
        var leftWindow = Set<String>()
        if !gone.isEmpty {
            let found = try CalendarExporter(client: client).fetchMasters(Array(gone))
            for id in gone {
                if let json = found[id] ?? nil, !json.isEmpty { leftWindow.insert(id) } else { deleted.insert(id) }
            }
        }
        let seriesIDs = order.filter { sources[$0]?.isSeries == true }
        let masters = seriesIDs.isEmpty ? [:] : try CalendarExporter(client: client).fetchMasters(seriesIDs)
        var sequence = meta.sequence
        var writes: [DAVItem] = []
        var removals: [String] = []
        var taken = Set(current.items.map(\.name))
        for id in deleted {
            guard let item = byGraphID[id] else { continue }
            removals.append(item.name)
            taken.remove(item.name)
        }
        for id in leftWindow {
            guard var item = byGraphID[id], !item.outside else { continue }
            item.outside = true
            writes.append(item)
        }
        var diagnostics: [Diagnostic] = []
        for key in order {
            guard let source = sources[key] else { continue }
            var master: Data?
            if source.isSeries {
                guard let read = masters[key] ?? nil else {
                    if let item = byGraphID[key] {
                        removals.append(item.name)
                        taken.remove(item.name)
                    }
                    continue
                }
                master = read
            }
            let existing = byGraphID[key]
            var item = try render(source, master: master, existing: existing, window: window, diagnostics: &diagnostics)
            if let written = pendingByID[key], item.failure == nil {
                // What a write just sent: its client's text is served, Outlook's version is its baseline.
                item.body = written.body
                item.servesClient = true
                item.etag = DAVItem.etag(of: written.body)
            }
            if existing == nil {
                if taken.contains(item.name) {
                    log(
                        "\(login.user)/\(info.name): Graph event \(key) has the UID \(item.uid) of an event served"
                            + " already; only the first is served")
                    continue
                }
                taken.insert(item.name)
            }
            rendered.insert(key)
            // The sequence moves when the served body changes from what was published (a pending item
            // is not published yet).
            let published = pendingByID[key] == nil ? existing : current.item(named: item.name)
            if published?.body == item.body, let published {
                item.sequence = published.sequence
                if published == item { continue }
            } else {
                sequence += 1
                item.sequence = sequence
            }
            writes.append(item)
        }
        for diagnostic in diagnostics where diagnostic.severity == .error {
            log("\(login.user)/\(info.name): \(diagnostic.message)")
        }
        let seconds = Int64(now.timeIntervalSince1970)
        try store.database.transaction {
            for name in removals {
                sequence += 1
                try store.remove(name, sequence: sequence, now: seconds)
            }
            for item in writes { try store.write(item) }
            if let floor = try store.forgetRemovals(before: seconds - 60 * 86_400) {
                meta.floor = max(meta.floor, floor)
            }
            meta.sequence = sequence
            meta.cursor = read.cursor
            meta.refreshed = seconds
            try store.save(meta)
        }
        return rendered
    }

    /// The item `source` renders to, as sync's pull writes it (the item's recorded UID kept), with the kept
    /// properties of `existing`. When it cannot be converted or is not one item, the item keeps its name and
    /// UID and carries the reason (`failure`), and the diagnostics say why.
    func render(
        _ source: PullItemSource, master: Data?, existing: DAVItem?, window: SyncWindow, outside: Bool = false,
        diagnostics: inout [Diagnostic]
    ) throws -> DAVItem {
        guard let client else { throw DAVGatewayError.noSession }
        let encoder = PullItemEncoder(client: client, options: exportOptions, window: window)
        var spans = source.events.compactMap(DAVSpan.of)
        if spans.isEmpty, let master, let span = DAVSpan.of(master) { spans = [span] }
        let eventIDs = source.isSeries ? source.occurrenceKeys.keys.sorted() : [source.graphID]
        let kept = existing?.kept ?? DAVKeptProperties()
        let before = diagnostics.count
        guard
            let encoded = try encoder.encode(
                source.events, master: master.map { (source.graphID, $0) }, uid: existing?.uid,
                diagnostics: &diagnostics),
            encoded.uids.count == 1, encoded.masterCount <= 1
        else {
            let errors = diagnostics.dropFirst(before).filter { $0.severity == .error }.map(\.message)
            let reason =
                errors.isEmpty
                ? "the series cannot be written as one iCalendar object (its occurrences would each be an event)"
                : errors.joined(separator: "; ")
            if errors.isEmpty {
                diagnostics.append(Diagnostic(.error, reason, eventID: source.graphID, subject: nil))
            }
            let uid = existing?.uid ?? Self.uid(of: master ?? source.events.first) ?? source.graphID
            return DAVItem(
                name: existing?.name ?? Self.name(forUID: uid), uid: uid, graphID: source.graphID,
                isSeries: source.isSeries, body: Data(), graphBody: Data(), servesClient: false, etag: "",
                spans: spans, sequence: 0, eventIDs: eventIDs, master: master, kept: kept, outside: outside,
                failure: "Outlook's event \(source.graphID) cannot be served as iCalendar: \(reason)")
        }
        let graphBody = Self.withoutMethod(encoded.contents)
        var body = kept.applied(to: graphBody)
        // A client's text stays served while Outlook's version is the one its PUT made.
        let servesClient = existing.map { $0.servesClient && $0.graphBody == graphBody } ?? false
        if servesClient, let existing { body = existing.body }
        return DAVItem(
            name: existing?.name ?? Self.name(forUID: encoded.uid), uid: encoded.uid, graphID: source.graphID,
            isSeries: source.isSeries, body: body, graphBody: graphBody, servesClient: servesClient,
            etag: DAVItem.etag(of: body), spans: spans, sequence: 0, eventIDs: eventIDs, master: master,
            kept: kept, outside: outside)
    }

    /// Graph's `iCalUId` of an event's JSON, if it has one.
    static func uid(of event: Data?) -> String? {
        guard let event, let object = (try? JSONSerialization.jsonObject(with: event)) as? [String: Any],
            let uid = object["iCalUId"] as? String, !uid.isEmpty
        else { return nil }
        return uid
    }

    /// An iCalendar text without its METHOD line: a calendar object resource has none (RFC 4791 §4.1).
    static func withoutMethod(_ data: Data) -> Data {
        let marker = Data("\r\nMETHOD:".utf8)
        guard let found = data.range(of: marker),
            let end = data.range(of: Data("\r\n".utf8), in: found.upperBound..<data.endIndex)
        else { return data }
        var result = data
        result.removeSubrange(found.lowerBound..<end.lowerBound)
        return result
    }

    /// The resource name of an Outlook event: its UID with `.ics` when the UID is made of safe characters,
    /// else the first 32 hex of its SHA-256.
    static func name(forUID uid: String) -> String {
        let safe =
            uid.utf8.count <= 200 && !uid.isEmpty
            && uid.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (CharacterSet.alphanumerics.contains(scalar) || "._-@".unicodeScalars.contains(scalar))
            }
            && !uid.hasPrefix(".")
        return (safe ? uid : String(SHA256.hexDigest(uid.utf8).prefix(32))) + ".ics"
    }
}

/// A failure of the gateway itself (not Graph's), with a sentence for the log.
struct DAVGatewayError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    static let noSession = DAVGatewayError("the account has no Outlook session on this server")
}
