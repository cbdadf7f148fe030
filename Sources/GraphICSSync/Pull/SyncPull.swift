import Foundation
import GraphICS
import ICalBridge

/// The pull half of `graph-ics sync`: brings Graph's changes into a pairing's folder and records them.
///
/// A first pull reads the whole window with `calendarView/delta` (stored a ``lookahead`` wider than asked,
/// so that a window moving with today seldom needs a new round) and writes one file per item: a single
/// event, or a series (its master read with `GET events/{id}`, its overrides and EXDATEs) exactly as the
/// export writes it. Later pulls resume from the stored delta link: a round with no change is one request
/// and writes nothing; a changed or removed occurrence refreshes its whole series file; an event deleted
/// or moved out of the window deletes its file. A 410 from Graph, or a stored window that no longer covers
/// the one asked for, starts a full round compared with what is on disk.
///
/// Files are written only when their bytes change. A file whose size, time or hash differs from its
/// record (edited in khal, say) is never overwritten or deleted: the item is reported in
/// ``PullReport/keptLocalChanges`` for the push and conflict layer, and the delta link is not advanced, so
/// that Graph's version comes again at the next pull until that layer settles the item. Files go to disk (atomically) before
/// the state records them, in batches of ``batchSize`` per transaction, and the delta link is saved last:
/// a pull killed at any instant is repeated by the next run, which records a file already holding Graph's
/// version instead of writing it again.
///
/// The caller holds the pairing's ``SyncLock``.
public struct SyncPull {
    public let client: GraphClient
    public let state: SyncState
    public let pairing: SyncPairing
    public let folder: VdirFolder
    /// The fallback zone and the name in diagnostics, as for `export`.
    public var options: ExportOptions
    /// How much further ahead than asked a new window reaches (30 days unless set).
    public var lookahead: Int64 = 30 * 86_400
    /// Entries per delta page (`Prefer: odata.maxpagesize`).
    public var pageSize = 1000
    /// Items written per batch and recorded per state transaction.
    public var batchSize = 200
    /// Tests only: runs after a batch's files are on disk and before the state records them (a crash there).
    var beforeRecording: (() throws -> Void)?

    public init(
        client: GraphClient, state: SyncState, pairing: SyncPairing, folder: VdirFolder,
        options: ExportOptions = ExportOptions()
    ) {
        self.client = client
        self.state = state
        self.pairing = pairing
        self.folder = folder
        self.options = options
    }

    /// Pulls Graph's changes for `window` (the span the user asked for) into the folder.
    public func run(window asked: SyncWindow) throws -> PullReport {
        try folder.removeLeftoverTemporaries()
        let widened = SyncWindow(start: asked.start, end: asked.end + lookahead)
        guard let checkpoint = try state.deltaCheckpoint(of: pairing) else {
            return try fullRound(widened, round: .first)
        }
        guard checkpoint.window.covers(asked) else { return try fullRound(widened, round: .reanchored) }
        do {
            return try changesRound(checkpoint)
        } catch is DeltaResyncRequired {
            return try fullRound(checkpoint.window, round: .resync)
        }
    }

    // MARK: Rounds

    /// Reads every event of `window` and makes the folder match it.
    private func fullRound(_ window: SyncWindow, round: PullReport.Round) throws -> PullReport {
        var events: [DeltaEvent] = []
        let link = try client.calendarViewDelta(start: window.startDate, end: window.endDate, pageSize: pageSize) {
            events += $0.events
        }
        var report = PullReport(round: round, window: window)
        let sources = DeltaEntryShape.group(events)
        let masters = try CalendarExporter(client: client).fetchMasters(sources.filter(\.isSeries).map(\.graphID))
        var updates: [PullUpdate] = []
        var gone: [String] = []
        for source in sources {
            let prepared = try prepare(
                source, window: window, fetchOccurrences: false, masters: masters, diagnostics: &report.diagnostics)
            switch prepared {
            case .update(let update): updates.append(update)
            case .gone: gone.append(source.graphID)
            case .skipped: break
            }
        }
        let seen = Set(sources.map(\.graphID)).subtracting(gone)
        let deletions = try state.items(of: pairing).filter { record in
            record.graphID.map { !seen.contains($0) } ?? false
        }
        try apply(updates, deleting: deletions, checkpoint: DeltaCheckpoint(link: link, window: window), &report)
        return report
    }

    /// Applies what changed since the stored delta link.
    private func changesRound(_ checkpoint: DeltaCheckpoint) throws -> PullReport {
        let changes = try client.calendarViewDelta(resumingFrom: checkpoint.link, pageSize: pageSize)
        let link = changes.deltaLink
        var report = PullReport(round: .changes, window: checkpoint.window)
        let next = DeltaCheckpoint(link: link, window: checkpoint.window)
        guard !changes.events.isEmpty || !changes.removedIDs.isEmpty else {
            try state.saveDeltaCheckpoint(next, for: pairing)
            return report
        }
        let records = try state.items(of: pairing)
        let byGraphID = Dictionary(records.compactMap { r in r.graphID.map { ($0, r) } }) { first, _ in first }
        var sources = DeltaEntryShape.group(changes.events)
        var deletions = try removals(changes.removedIDs, records: records, sources: &sources)
        let deleted = Set(deletions.compactMap(\.graphID))
        var updates: [PullUpdate] = []
        for source in sources where !deleted.contains(source.graphID) {
            let prepared = try prepare(
                source, window: checkpoint.window, fetchOccurrences: true, diagnostics: &report.diagnostics)
            switch prepared {
            case .update(let update): updates.append(update)
            case .gone: deletions += byGraphID[source.graphID].map { [$0] } ?? []
            case .skipped: break
            }
        }
        try apply(updates, deleting: deletions, checkpoint: next, &report)
        return report
    }

    /// The items Graph's `@removed` ids delete (a single event's id); an id of a series' occurrence adds
    /// that series to `sources` instead, to be read again (its file goes only when its master is gone).
    private func removals(_ ids: [String], records: [SyncItemRecord], sources: inout [PullItemSource]) throws
        -> [SyncItemRecord]
    {
        let byGraphID = Dictionary(records.compactMap { r in r.graphID.map { ($0, r) } }) { first, _ in first }
        let byFileName = Dictionary(records.map { ($0.fileName, $0) }) { first, _ in first }
        var refreshed = Set(sources.map(\.graphID))
        var deletions: [SyncItemRecord] = []
        for id in ids {
            if let record = byGraphID[id] {
                deletions.append(record)
            } else if let name = try state.fileName(ofOccurrence: id, in: pairing),
                let master = byFileName[name]?.graphID, refreshed.insert(master).inserted
            {
                sources.append(PullItemSource(graphID: master, isSeries: true, events: [], changeKey: nil))
            }
        }
        return deletions
    }
}

extension SyncWindow {
    var startDate: Date { Date(timeIntervalSince1970: TimeInterval(start)) }
    var endDate: Date { Date(timeIntervalSince1970: TimeInterval(end)) }
}
