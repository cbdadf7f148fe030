import Foundation
import GraphICS
import GraphICSMirror
import ICalBridge

/// One run of `graph-ics sync` over one pairing: takes the folder's lock, plans both sides, checks the
/// plans against the mass-deletion guard, settles conflicts, applies (unless a dry run) and reports.
///
/// The order is what keeps every edit: nothing is changed before both plans exist and the guard passed;
/// the loser of a settled conflict is copied to the ``ConflictArchive`` before the winner replaces it; the
/// pull writes first (it never overwrites a local edit it was not told to), then the push is planned again
/// from the folder and the records as the pull left them, and applied.
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
        if !options.dryRun {
            try folder.removeLeftoverTemporaries()
            if options.startsOver { try forgetPairing() }
        }
        let recorded = try state.itemCount(of: pairing)
        let pushPlan = try push.plan()
        let pullPlan = options.direction.pulls ? try pull.plan(window: options.window) : nil
        var report = SyncReport(
            isDryRun: options.dryRun, round: pullPlan?.round, window: pullPlan?.window ?? options.window)
        // A local file's error is its item's `failed:` line already; only its warnings are added.
        report.diagnostics =
            (pullPlan?.diagnostics ?? [])
            + (options.direction.pushes ? pushPlan.diagnostics.filter { $0.severity != .error } : [])
        report.confirmations = pullPlan?.confirmations ?? 0
        do {
            try MassDeletionGuard(allowsMassDeletion: options.allowsMassDeletion).check(
                items: recorded,
                deletions: [
                    .folder: pullPlan?.deletionCount ?? 0,
                    .outlook: options.direction.pushes ? pushPlan.deletionCount : 0,
                ])
        } catch {
            report.refusal = error
            return report
        }
        let held = Self.heldAgain(pushPlan, held: try state.heldItems(of: pairing)).subtracting(options.discarding)
        let found = try Self.conflicts(pullPlan, pushPlan).filter { try !sentBefore($0, pushPlan) }
        let conflicts = try describe(found.filter { !held.contains($0.fileName) }, pullPlan, pushPlan)
        var resolutions = resolve(conflicts)
        // Settled before as yours and held since (a meeting Graph would mail about): the same answer, quietly.
        for conflict in found where held.contains(conflict.fileName) && options.direction.pushes {
            resolutions[conflict.fileName] = .local
        }
        if !options.direction.pushes {
            report.unsentLocalChanges = pushPlan.fileNames.subtracting(resolutions.keys).count
        }
        if options.dryRun {
            report.items = try planned(pullPlan, pushPlan, conflicts, resolutions)
        } else {
            report.items = try apply(pullPlan, pushPlan, conflicts, resolutions, settled: held)
        }
        // A held item is reported once per local change; after that the summary counts it (a dry run alike).
        let quiet = report.items.filter { item in
            if case .held = item.outcome { held.contains(item.fileName) } else { false }
        }
        report.heldBefore = quiet.count
        report.items.removeAll { item in quiet.contains(item) }
        if !options.dryRun { try writeMetadata(round: report.round) }
        return report
    }

    // MARK: The two sides

    var pull: SyncPull {
        SyncPull(
            client: client, state: state, pairing: pairing, folder: folder,
            calendar: options.calendarID.map { .other(id: $0) } ?? .primary,
            options: ExportOptions(fallbackZone: options.zone, file: folder.path), rereading: options.discarding)
    }

    var push: SyncPush {
        SyncPush(
            client: client, state: state, pairing: pairing, folder: folder,
            settings: PushSettings(
                notifiesAttendees: options.notifiesAttendees,
                importOptions: ImportOptions(userZone: options.zone, strict: true, file: folder.path),
                calendarID: options.calendarID))
    }

    // MARK: Applying

    /// Pulls (overwriting the conflicts Graph won, their local text archived first), then plans the push
    /// again and sends it (the conflicts the local side won with Graph's version archived first).
    private func apply(
        _ pullPlan: PullPlan?, _ pushPlan: PushPlan, _ conflicts: [SyncConflict],
        _ resolutions: [String: SyncReport.Resolution], settled: Set<String>
    ) throws -> [SyncReport.Item] {
        let winners = { (side: SyncReport.Resolution) in Set(resolutions.filter { $0.value == side }.keys) }
        var kept: [String: String] = [:]
        var items: [SyncReport.Item] = []
        let conflicting = Set(resolutions.keys)
        if let pullPlan {
            for name in winners(.local).subtracting(settled).sorted() {
                if let graphVersion = pull.graphVersion(ofFile: name, in: pullPlan) {
                    kept[name] = try archive.keep(graphVersion, of: name, side: .graph)
                }
            }
            // The subjects of the files the pull deletes, read while they are there, for the report.
            let going = Dictionary(
                pullPlan.items.filter { $0.action == .deleted }.compactMap { item in
                    Self.subject(ofFile: item.fileName, in: folder).map { (item.fileName, $0) }
                }
            ) { first, _ in first }
            let pulled = try pull.apply(pullPlan, overwriting: winners(.graph)) { name, contents in
                kept[name] = try archive.keep(contents, of: name, side: .local)
            }
            items += Self.pulledItems(
                pulled.pulled, outside: pulled.outsideWindow, unconfirmed: pulled.unconfirmed, plan: pullPlan,
                leaving: conflicting, folder: folder, known: going)
        }
        var pushed: [PushedItem] = []
        if options.direction.pushes {
            let push = self.push
            // Planned again from the folder and the records as the pull left them; the files the pull did not
            // touch are taken from the first plan, not read and mapped twice.
            pushed = try push.apply(
                push.plan(reusing: pushPlan), skipping: winners(.skip), overriding: winners(.local)
            ).items
        }
        let pushedByFile = Dictionary(pushed.map { ($0.fileName, $0) }) { first, _ in first }
        for conflict in conflicts {
            let resolution = resolutions[conflict.fileName] ?? .skip
            if resolution == .local, let item = pushedByFile[conflict.fileName], !Self.succeeded(item) {
                continue  // reported as the push reports it (failed, held, conflict)
            }
            items.append(
                SyncReport.Item(
                    fileName: conflict.fileName, uid: conflict.uid, subject: conflict.subject,
                    outcome: .conflict(
                        resolution, kept: kept[conflict.fileName], reason: nil, mails: conflict.attendeesMailed)))
        }
        // A conflict the local side won is reported as the conflict; one settled before (held since) as the push.
        let reported = Set(conflicts.map(\.fileName))
        items += pushed.filter { !(reported.contains($0.fileName) && Self.succeeded($0)) }.map(
            SyncReport.Item.init)
        return items
    }

    /// The pull's items as the sync reports them (those in `leaving`, conflicts, left to the conflict's line):
    /// one line per file pulled; an item found outside the window for the first time as `outside window`
    /// (also when its file was brought up to date); an item whose deletion Graph did not confirm as failed.
    static func pulledItems(
        _ pulled: [PullReport.PulledItem], outside: [PullReport.ItemName], unconfirmed: [PullReport.Unconfirmed],
        plan: PullPlan, leaving: Set<String>, folder: VdirFolder, known: [String: String] = [:]
    ) -> [SyncReport.Item] {
        let subjects = PulledSubjects.of(plan).merging(known) { graph, _ in graph }
        let local = { (name: String) -> String? in subject(ofFile: name, in: folder) }
        let outsideNames = Set(outside.map(\.fileName))
        var items = pulled.filter { !leaving.contains($0.fileName) && !outsideNames.contains($0.fileName) }.map {
            SyncReport.Item(
                fileName: $0.fileName, uid: $0.uid, subject: subjects[$0.fileName] ?? local($0.fileName),
                outcome: .pulled(SyncReport.Change($0.action)))
        }
        for item in outside where !leaving.contains(item.fileName) {
            items.append(
                SyncReport.Item(
                    fileName: item.fileName, uid: item.uid, subject: subjects[item.fileName] ?? local(item.fileName),
                    outcome: .outsideWindow))
        }
        for item in unconfirmed {
            items.append(
                SyncReport.Item(
                    fileName: item.fileName, uid: item.uid, subject: local(item.fileName),
                    outcome: .failed(
                        reason: "\(item.reason); the file is kept (not confirmed)", requestID: item.requestID)))
        }
        return items
    }

    /// The SUMMARY of the item file `name` (the master's, for a series); nil when there is none or no file.
    static func subject(ofFile name: String, in folder: VdirFolder) -> String? {
        (try? folder.read(name)).flatMap { PulledSubjects.summary(in: $0.contents) }
    }

    private static func succeeded(_ item: PushedItem) -> Bool {
        switch item.outcome {
        case .pushed, .recorded: true
        case .held, .conflict, .failed, .refused: false
        }
    }

    /// A dry run's report: what the pull and the push would do, and the conflicts.
    /// What the run would report, changing nothing: the pull's plan, the conflicts, and each push action
    /// decided as the run decides it (``SyncPush/preview(_:overriding:)``, reading Graph's event), so a file
    /// the run would hold, refuse or find in conflict is not reported as `would push`.
    private func planned(
        _ pullPlan: PullPlan?, _ pushPlan: PushPlan, _ conflicts: [SyncConflict],
        _ resolutions: [String: SyncReport.Resolution]
    ) throws -> [SyncReport.Item] {
        let conflicting = Set(resolutions.keys)
        var items =
            pullPlan.map {
                Self.pulledItems(
                    $0.items, outside: $0.outsideWindow, unconfirmed: $0.unconfirmed, plan: $0, leaving: conflicting,
                    folder: folder)
            } ?? []
        guard options.direction.pushes else {
            return items + conflicts.map { conflictItem($0, resolutions) }
        }
        let push = self.push
        var previews: [String: PushedItem] = [:]
        for action in pushPlan.actions {
            // Outlook's side won, or nobody: the run sends nothing. The local side won (now, or settled before and
            // held since): sent over Graph's change, as the run does.
            let resolution = resolutions[action.fileName]
            guard resolution == nil || resolution == .local else { continue }
            previews[action.fileName] = try push.preview(action, overriding: resolution == .local)
        }
        // A conflict the local side would win is reported as the push would report it when that is not a send.
        for conflict in conflicts {
            if resolutions[conflict.fileName] == .local, let preview = previews[conflict.fileName],
                !Self.succeeded(preview)
            {
                continue
            }
            items.append(conflictItem(conflict, resolutions))
        }
        let reported = Set(conflicts.map(\.fileName))
        items += pushPlan.problems.map(SyncReport.Item.init)
        items += pushPlan.actions.compactMap { previews[$0.fileName] }.filter {
            !(reported.contains($0.fileName) && Self.succeeded($0))
        }.map(SyncReport.Item.init)
        return items
    }

    /// A conflict's line in a dry run.
    private func conflictItem(_ conflict: SyncConflict, _ resolutions: [String: SyncReport.Resolution])
        -> SyncReport.Item
    {
        SyncReport.Item(
            fileName: conflict.fileName, uid: conflict.uid, subject: conflict.subject,
            outcome: .conflict(
                resolutions[conflict.fileName] ?? .skip, kept: nil, reason: nil, mails: conflict.attendeesMailed))
    }

    // MARK: Housekeeping

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

    init(_ kind: PushAction.Kind) {
        switch kind {
        case .create: self = .new
        case .update: self = .changed
        case .delete: self = .deleted
        }
    }

    init(_ action: PushedItem.Action) {
        switch action {
        case .new: self = .new
        case .changed: self = .changed
        case .deleted: self = .deleted
        }
    }
}

extension SyncReport.Item {
    /// The push's report of an item, as the sync reports it.
    init(_ item: PushedItem) {
        let outcome: SyncReport.Outcome
        switch item.outcome {
        case .pushed(let action): outcome = .pushed(SyncReport.Change(action))
        case .recorded: outcome = .recorded
        case .held(let attendees): outcome = .held(attendees: attendees)
        case .conflict(let reason): outcome = .conflict(.skip, kept: nil, reason: reason)
        case .failed(let reason, let requestID): outcome = .failed(reason: reason, requestID: requestID)
        case .refused(let reason): outcome = .refused(reason: reason)
        }
        self.init(fileName: item.fileName, uid: item.uid, subject: item.subject, outcome: outcome, note: item.note)
    }
}
