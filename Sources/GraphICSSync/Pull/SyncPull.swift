import Foundation
import GraphICS
import GraphICSMirror
import ICalBridge

/// The pull half of `graph-ics sync`: brings Graph's changes into a pairing's folder and records them.
///
/// A pull is planned, then applied. ``plan(window:)`` runs a round of the calendar's mirror
/// (``CalendarMirror``, the one reader of Graph's changes, shared with `serve`) and stats the folder, and
/// writes nothing of the pairing's; ``apply(_:overwriting:archive:)`` writes the files and records them;
/// ``run(window:)`` does both.
///
/// The pairing's window is stored a ``lookahead`` wider than asked, so that a window moving with today
/// seldom needs a new one. A first pull takes the whole window from the mirror and writes one file per item:
/// a single event, or a series (its master read with `GET events/{id}`, its overrides and EXDATEs) exactly
/// as the export writes it, named after its UID; an item the state records keeps its file name and UID (an
/// event the push created has an `iCalUId` Graph made, not the file's UID), and an event whose file or UID
/// another event's record holds is not pulled (a warning). Later pulls on the primary calendar read the
/// mirror's changes since the pairing's cursor: with no change one Graph request and nothing written; a
/// changed or removed occurrence refreshes its whole series file. A file is deleted only when Graph
/// confirms its event is gone (``confirm(_:into:)``: a GET answers 404 or 410); an event that left the
/// window keeps its file, marked outside the window. After a whole Graph round (410, re-anchoring), a window
/// no longer covered, and on another calendar (where Graph v1.0 documents no delta) at every pull, the
/// whole window is compared with the records by change key.
///
/// Files are written only when their bytes change, and a single event whose change key is the recorded
/// one (a change the push sent) is not read further. A file whose size, time or hash differs from its
/// record (edited in khal, say) is never overwritten or deleted unless the apply is told to (a conflict
/// won by Graph, after its text was archived): the item is reported in ``PullPlan/keptLocalChanges`` for
/// the push and conflict layer. After a read of changes the cursor is then not advanced, so that Graph's
/// version comes again; after a whole read the cursor is stored and the kept item's record loses its
/// change key, so that later rounds read its event again until that layer settles the item. Files go to
/// disk (atomically) before the state records them, in batches of ``batchSize`` per transaction, and the
/// cursor is saved last: a pull killed at any instant is repeated by the next run (the mirror keeps the
/// changes), which records a file already holding Graph's version instead of writing it again.
///
/// The caller holds the pairing's ``SyncLock``.
public struct SyncPull {
    public let client: GraphClient
    public let state: SyncState
    public let pairing: SyncPairing
    public let folder: VdirFolder
    /// The primary calendar (read through delta) or another one (read whole and compared).
    public let calendar: PullCalendar
    /// The fallback zone and the name in diagnostics, as for `export`.
    public var options: ExportOptions
    /// How much further ahead than asked a new window reaches (30 days unless set).
    public var lookahead: Int64 = 30 * 86_400
    /// Entries per delta or calendarView page (`Prefer: odata.maxpagesize`, `$top`).
    public var pageSize = 1000
    /// Items written per batch and recorded per state transaction.
    public var batchSize = 200
    /// Items whose Graph version is read again whatever their change key (`--discard FILE`).
    public var rereading: Set<String> = []
    /// Tests only: runs after a batch's files are on disk and before the state records them (a crash there).
    var beforeRecording: (() throws -> Void)?

    public init(
        client: GraphClient, state: SyncState, pairing: SyncPairing, folder: VdirFolder,
        calendar: PullCalendar = .primary, options: ExportOptions = ExportOptions(), rereading: Set<String> = []
    ) {
        self.rereading = rereading
        self.client = client
        self.state = state
        self.pairing = pairing
        self.folder = folder
        self.calendar = calendar
        self.options = options
    }

    /// Pulls Graph's changes for `window` (the span the user asked for) into the folder: removes leftover
    /// temporary files, then ``plan(window:)`` and ``apply(_:overwriting:archive:)``.
    public func run(window asked: SyncWindow) throws -> PullReport {
        try folder.removeLeftoverTemporaries()
        return try apply(try plan(window: asked))
    }

    /// What pulling Graph's changes for `window` (the span the user asked for) would do: runs a round of the
    /// calendar's mirror (``CalendarMirror``, which owns the Graph rounds) and reads the folder; writes
    /// nothing of the pairing's (no file, no record, no cursor).
    public func plan(window asked: SyncWindow) throws -> PullPlan {
        let records = try state.items(of: pairing).map { record in
            var read = record
            if rereading.contains(record.fileName) { read.changeKey = nil }
            return read
        }
        let stored = try state.deltaCheckpoint(of: pairing)
        let covering = stored.map(\.window).flatMap { $0.covers(asked) ? $0 : nil }
        let window = covering ?? SyncWindow(start: asked.start, end: asked.end + lookahead)
        // A checkpoint stored before the mirror holds a delta link, not a cursor: the first read is whole,
        // compared with the records (nothing is written for an item Graph did not change). On a calendar
        // without delta every read is whole, compared with the records as before the mirror: an item the
        // push placed outside the window is found missing there and asked about once.
        let cursor = covering == nil || calendar != .primary ? nil : stored.flatMap { MirrorCursor($0.link) }
        let read = try mirror.read(consumer: "sync:\(pairing.id)", window: window, since: cursor)
        let round: PullReport.Round =
            switch (stored, covering, read.round) {
            case (nil, _, _): .first
            case (_, nil, _), (_, _, .first), (_, _, .reanchored): .reanchored
            case (_, _, .resync): .resync
            case (_, _, .changes): .changes
            }
        // The mirror's events of their own that hold moved occurrences, read once for the round, and only when
        // a changed series needs them.
        let moved = MovedOccurrenceIndex(mirror: mirror)
        var plan: PullPlan
        switch read.kind {
        case .whole:
            plan = PullPlan(
                round: round, window: window, items: [], keptLocalChanges: [], diagnostics: [], unchanged: 0,
                updates: [], deletions: [],
                checkpoint: .marking(DeltaCheckpoint(link: read.cursor.description, window: window)))
            // Over the stored window a series whose occurrences kept their change keys is the file it was.
            let keys = covering != nil ? try state.occurrenceChangeKeys(in: pairing) : [:]
            try compare(
                DeltaEntryShape.group(read.events), with: records, fetchOccurrences: false,
                occurrenceKeys: keys, moved: moved, into: &plan)
        case .changes:
            plan = try changesRound(read, window: window, round: round, records: records, moved: moved)
        }
        try classify(&plan, records: records)
        return plan
    }

    /// The calendar's mirror, in the state folder beside the state database.
    var mirror: CalendarMirror {
        let mirror = state.mirror(of: calendar, for: pairing, client: client)
        mirror.pageSize = pageSize
        return mirror
    }

    /// Graph's version of the item file `name` as `plan` would write it (for a conflict's archive); nil
    /// when the plan deletes it or does not touch it.
    public func graphVersion(ofFile name: String, in plan: PullPlan) -> Data? {
        plan.updates.first { $0.fileName == name }?.contents
    }

    // MARK: A round of changes

    /// Plans what changed since the pairing's cursor, and reads again the items whose Graph version a
    /// full round kept back. A removed event, and a series with no occurrence left in the window, is
    /// deleted only once Graph confirms it (see ``confirm(_:into:)``).
    private func changesRound(
        _ read: MirrorRead, window: SyncWindow, round: PullReport.Round, records: [SyncItemRecord],
        moved: MovedOccurrenceIndex
    )
        throws -> PullPlan
    {
        var plan = PullPlan(
            round: round, window: window, items: [], keptLocalChanges: [], diagnostics: [],
            unchanged: 0, updates: [], deletions: [],
            checkpoint: .unlessKept(DeltaCheckpoint(link: read.cursor.description, window: window)))
        let byGraphID = Self.byGraphID(records)
        var sources = DeltaEntryShape.group(read.events)
        let candidates = try removals(read.removedIDs, records: records, sources: &sources)
        let asked = Set(candidates.compactMap(\.graphID))
        var listed = Set(sources.map(\.graphID))
        for record in records where record.awaitsGraphVersion {
            guard let id = record.graphID, !asked.contains(id), listed.insert(id).inserted else { continue }
            sources.append(PullItemSource(graphID: id, isSeries: false, events: [], changeKey: nil, unread: true))
        }
        // A series the push changed comes back with the occurrences' change keys it recorded.
        let occurrenceKeys = sources.contains(where: \.isSeries) ? try state.occurrenceChangeKeys(in: pairing) : [:]
        for source in sources where !asked.contains(source.graphID) {
            let record = byGraphID[source.graphID]
            if Self.isUnchanged(source, record: record)
                || Self.isUnchangedSeries(
                    source, record: record, recorded: record.flatMap { occurrenceKeys[$0.fileName] }, whole: false)
            {
                plan.unchanged += 1
                continue
            }
            switch try prepare(
                source, record: record, window: window, fetchOccurrences: true, moved: moved,
                diagnostics: &plan.diagnostics)
            {
            case .update(let update): plan.updates.append(update)
            case .gone: plan.deletions += record.map { [$0] } ?? []
            case .leftWindow(let master):
                if let record { try keep(record, graphVersion: master, moved: moved, into: &plan) }
            case .skipped: break
            }
        }
        try confirm(candidates, moved: moved, into: &plan)
        return plan
    }

    /// The records of the single events Graph's `@removed` ids name (to be confirmed); an id of a series'
    /// occurrence adds that series to `sources` instead, to be read again (its file goes only when its
    /// master is gone). An id no record or recorded occurrence holds is ignored, without a request.
    private func removals(_ ids: [String], records: [SyncItemRecord], sources: inout [PullItemSource]) throws
        -> [SyncItemRecord]
    {
        let byGraphID = Self.byGraphID(records)
        let byFileName = Dictionary(records.map { ($0.fileName, $0) }) { first, _ in first }
        var refreshed = Set(sources.map(\.graphID))
        var candidates: [SyncItemRecord] = []
        for id in ids {
            if let record = byGraphID[id] {
                if refreshed.insert(id).inserted { candidates.append(record) }
            } else if let name = try state.fileName(ofOccurrence: id, in: pairing),
                let master = byFileName[name]?.graphID, refreshed.insert(master).inserted
            {
                sources.append(PullItemSource(graphID: master, isSeries: true, events: [], changeKey: nil))
            }
        }
        return candidates
    }

    // MARK: Comparing a whole window

    /// Plans `sources` (every item of the plan's window) against `records`: items whose change keys are
    /// the recorded ones are left alone, the others encoded (series masters read four at a time), and the
    /// records of items no longer there asked about (``confirm(_:into:)``): on a round of changes over the
    /// stored window (a calendar without delta) not those Graph confirmed outside the window before, which a
    /// new window asks about again.
    func compare(
        _ sources: [PullItemSource], with records: [SyncItemRecord], fetchOccurrences: Bool,
        occurrenceKeys: [String: [String: String?]] = [:], moved: MovedOccurrenceIndex, into plan: inout PullPlan
    ) throws {
        let byGraphID = Self.byGraphID(records)
        let changed = sources.filter { source in
            let record = byGraphID[source.graphID]
            return !Self.isUnchanged(source, record: record)
                && !Self.isUnchangedSeries(
                    source, record: record, recorded: record.flatMap { occurrenceKeys[$0.fileName] }, whole: true)
        }
        plan.unchanged += sources.count - changed.count
        let masters = try CalendarExporter(client: client).fetchMasters(changed.filter(\.isSeries).map(\.graphID))
        for source in changed {
            let record = byGraphID[source.graphID]
            let prepared = try prepare(
                source, record: record, window: plan.window, fetchOccurrences: fetchOccurrences,
                masters: masters, moved: moved, diagnostics: &plan.diagnostics)
            switch prepared {
            case .update(let update): plan.updates.append(update)
            case .gone: plan.deletions += record.map { [$0] } ?? []
            case .leftWindow(let master):
                if let record { try keep(record, graphVersion: master, moved: moved, into: &plan) }
            case .skipped: break
            }
        }
        let seen = Set(sources.map(\.graphID))
        let asksAgain = plan.round != .changes
        let unseen = records.filter { record in
            guard let id = record.graphID, !seen.contains(id) else { return false }
            return asksAgain || !record.outsideWindow
        }
        try confirm(unseen, moved: moved, into: &plan)
    }

    /// Whether `source` is a single event whose change key is the one recorded: Graph has not changed it
    /// since the last sync (or the push recorded its own change), so there is nothing to pull. An item
    /// recorded outside the window is read again, so that its record learns it is back.
    static func isUnchanged(_ source: PullItemSource, record: SyncItemRecord?) -> Bool {
        guard !source.isSeries, !source.unread, let key = source.changeKey, let record, !record.outsideWindow,
            let recorded = record.changeKey
        else {
            return false
        }
        return key == recorded
    }

    /// Whether `source` is a series whose occurrences are the recorded ones, each with the recorded change
    /// key (a change to the master reaches every occurrence's): over a `whole` window every occurrence of
    /// the window, in a round of changes each occurrence the round reports (the push records the keys its
    /// own changes gave them, so the round that reports them pulls nothing back).
    static func isUnchangedSeries(
        _ source: PullItemSource, record: SyncItemRecord?, recorded: [String: String?]?, whole: Bool
    ) -> Bool {
        guard source.isSeries, let record, record.changeKey != nil, !record.outsideWindow, let recorded,
            !source.occurrenceKeys.isEmpty, !whole || recorded.count == source.occurrenceKeys.count
        else { return false }
        return source.occurrenceKeys.allSatisfy { id, key in recorded[id].flatMap { $0 } == key }
    }

    static func byGraphID(_ records: [SyncItemRecord]) -> [String: SyncItemRecord] {
        Dictionary(records.compactMap { r in r.graphID.map { ($0, r) } }) { first, _ in first }
    }
}
