import Foundation
import GraphICS
import ICalBridge

/// One run of `graph-ics sync` over one pairing: takes the folder's lock, plans both sides, checks the
/// plan against the mass-deletion guard, settles conflicts, applies (unless a dry run) and reports.
///
/// The order is what keeps every edit: nothing is changed before both plans exist and the guard passed;
/// the loser of a settled conflict is copied to the ``ConflictArchive`` before the winner replaces it; the
/// pull writes first (it never overwrites a local edit it was not told to), then the push is planned again
/// from the folder as the pull left it and applied.
public struct SyncRun {
    public let client: GraphClient
    public let state: SyncState
    public let pairing: SyncPairing
    public let folder: VdirFolder
    /// The state directory: the lock and the conflicts folder live there.
    public let stateDirectory: String
    public var options: SyncOptions
    /// Asked per conflict under `--conflict ask` (the command gives one only on a terminal); without one,
    /// conflicts are reported and neither side changes.
    public var resolver: ((SyncConflict) -> SyncReport.Resolution)?
    /// The calendar's name and colour, read when the folder's metadata is written: on a full round (a first
    /// sync, a resync, a re-read window) or when `displayname` is missing.
    public var calendarMetadata: (() throws -> CalendarMetadata?)?
    public var archive: ConflictArchive

    public init(
        client: GraphClient, state: SyncState, pairing: SyncPairing, folder: VdirFolder, stateDirectory: String,
        options: SyncOptions
    ) {
        self.client = client
        self.state = state
        self.pairing = pairing
        self.folder = folder
        self.stateDirectory = stateDirectory
        self.options = options
        archive = ConflictArchive(stateDirectory: stateDirectory)
    }

    /// Runs the sync. Throws ``SyncStoreError`` (``SyncStoreError/Code/locked`` when another sync of the
    /// folder holds the lock past ``SyncOptions/lockTimeout``), `SQLiteError`, and Graph's and the sign-in's
    /// errors for failures that stop the whole run; per-item failures are in the report.
    public func run() throws -> SyncReport {
        let lock = try SyncLock(directory: stateDirectory, folder: folder.path, timeout: options.lockTimeout)
        defer { lock.release() }
        if !options.dryRun { try folder.removeLeftoverTemporaries() }
        if options.startsOver, !options.dryRun { try forgetPairing() }
        var report = SyncReport(isDryRun: options.dryRun, round: nil, window: options.window)
        if options.direction.pulls {
            let pulled = try pull.run(window: options.window)
            report.round = pulled.round
            report.window = pulled.window
            report.diagnostics += pulled.diagnostics
            report.items += pulled.pulled.map {
                SyncReport.Item(fileName: $0.fileName, uid: $0.uid, outcome: .pulled(SyncReport.Change($0.action)))
            }
        }
        if !options.dryRun { try writeMetadata(round: report.round) }
        return report
    }

    /// `--reset`: forgets every item and the delta link of the pairing (the next pull is a first one).
    func forgetPairing() throws {
        try state.transaction {
            for record in try state.items(of: pairing) {
                try state.deleteItem(fileName: record.fileName, in: pairing)
                try state.clearOccurrences(of: record.fileName, in: pairing)
            }
            try state.saveDeltaCheckpoint(nil, for: pairing)
        }
    }

    var pull: SyncPull {
        SyncPull(
            client: client, state: state, pairing: pairing, folder: folder,
            options: ExportOptions(fallbackZone: options.zone, file: folder.path))
    }

    /// Writes `displayname` and `color` from the calendar on a full round or when `displayname` is missing.
    func writeMetadata(round: PullReport.Round?) throws {
        guard let calendarMetadata else { return }
        let full = round.map { $0 != .changes } ?? false
        let missing = try folder.metadata(.displayName) == nil
        guard full || missing, let metadata = try calendarMetadata() else { return }
        if let name = metadata.name, !name.isEmpty { try folder.setMetadata(.displayName, to: name) }
        if let color = metadata.hexColor.flatMap(VdirFolder.vdirColor) { try folder.setMetadata(.color, to: color) }
    }
}

extension SyncReport.Change {
    init(_ action: PullReport.Action) {
        switch action {
        case .new: self = .new
        case .changed: self = .changed
        case .deleted: self = .deleted
        }
    }
}
