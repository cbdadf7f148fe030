import Foundation
import GraphICSMirror
import ICalBridge

/// Which calendar a pairing syncs, which decides how the pull reads Graph's changes.
public typealias PullCalendar = MirrorCalendar

/// What a pull would do, found by reading Graph and the folder and writing nothing: the value
/// ``SyncPull/plan(window:)`` returns, that `--dry-run` prints and ``SyncPull/apply(_:overwriting:archive:)``
/// carries out.
public struct PullPlan: Sendable {
    /// Whether the round resumed a delta link or read the whole window, and why.
    public var round: PullReport.Round
    /// The window the pull reads and, for the primary calendar, the stored delta link covers after it.
    public var window: SyncWindow
    /// Per item, what the pull would do to its file (pull new, changed or deleted), with its UID.
    public var items: [PullReport.PulledItem]
    /// Items Graph changed or removed whose file changed here: left as they are unless the apply is told to
    /// overwrite them (a conflict Graph's side won).
    public var keptLocalChanges: [PullReport.KeptLocalChange]
    /// Problems converting single events or series (named by id and subject); those items are left out.
    public var diagnostics: [Diagnostic]
    /// Items Graph reported whose file already holds Graph's version (or whose change key is the recorded one).
    public var unchanged: Int
    /// Items the round no longer showed that Graph still has, found outside the window for the first time:
    /// their files stay (reported once).
    public var outsideWindow: [PullReport.ItemName] = []
    /// Items the round no longer showed whose deletion Graph could not confirm: file and record stay.
    public var unconfirmed: [PullReport.Unconfirmed] = []
    /// How many items Graph was asked about before any file was deleted (GETs, 20 to a `$batch`).
    public var confirmations = 0

    /// The files the pull would delete: those it deletes, and those kept back for a local edit that a
    /// conflict won by Graph would delete (for the mass-deletion guard).
    public var deletionCount: Int {
        items.filter { $0.action == .deleted }.count + keptLocalChanges.filter { $0.wouldHave == .deleted }.count
    }

    /// Graph's version of each item to write, by file name order of the round.
    var updates: [PullUpdate]
    /// The records of items Graph confirmed deleted (a GET of the event, or the series' master, answered
    /// 404 or 410).
    var deletions: [SyncItemRecord]
    /// Records of items Graph confirmed outside the window with the recorded change key: marked, not
    /// rewritten.
    var leftWindow: [SyncItemRecord] = []
    /// What the apply stores for the next pull.
    var checkpoint: PullCheckpoint
}

/// What an applied pull stores for the next one.
enum PullCheckpoint: Sendable {
    /// After a read of changes, the next cursor into the mirror: stored only when no local change was kept
    /// back, so that Graph's version comes again until the item is settled.
    case unlessKept(DeltaCheckpoint)
    /// After a read of the whole window, the next cursor, stored in any case; a kept item's record is marked
    /// instead (no change key), so that the next round reads its Graph version again.
    case marking(DeltaCheckpoint)
}

extension SyncItemRecord {
    /// Whether Graph's version of this item is still to be taken: a pull kept it back for a local edit
    /// after a full round, leaving no change key, so later pulls read the event again until it is settled.
    var awaitsGraphVersion: Bool { graphID != nil && changeKey == nil }

    /// Whether this record stands for an item no sync ever wrote here: a file found in the folder on a full
    /// round, differing from Graph's event with its UID (size −1, no hash). Its file is neither as recorded
    /// nor deleted here when missing.
    var isPlaceholder: Bool { sha256.isEmpty }
}
