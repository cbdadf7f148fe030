import Foundation
import GraphICS
import ICalBridge

/// The push half of `graph-ics sync`: sends the folder's changes since the last sync to Graph and records
/// them.
///
/// ``plan(reusing:)`` reads only the folder and the state: `stat` first, and only a file whose size or time differs
/// from its record is read, hashed and (when its hash differs too) mapped with the import's mapping, read
/// strictly. A new file (no record) is a create, a changed one an update, a recorded file gone a deletion;
/// a file renamed here (a new name, the UID of a record whose file is gone) is an update of that item.
/// The run plans again after its pull (``plan(reusing:)``), taking every file the pull left as it was from
/// the first plan: a changed file is read, hashed and mapped once per run.
/// Files that hold no event (VTODO, VJOURNAL) are left alone; a file that cannot be read, that holds
/// several UIDs, or whose recurrence Graph cannot hold is reported and nothing is sent for it.
///
/// ``apply(_:skipping:overriding:)`` sends the actions one at a time and records each in its own state
/// transaction right after Graph confirmed it:
/// - a create goes through the import (`EventImporter`): the source-UID property and `transactionId`
///   make it idempotent (a run killed before recording finds the event again instead of making a second),
///   no attendee is sent unless ``PushSettings/notifiesAttendees``, and a series' EXDATEs and overrides are
///   applied to its occurrences as the import applies them;
/// - an update reads the event first: Graph's change key moved since the last sync is a conflict (unless
///   the item is overridden); a meeting the user organises with attendees is held unless
///   ``PushSettings/notifiesAttendees``; otherwise a PATCH with `If-Match` (412 is a conflict), and for a
///   series the EXDATEs (occurrences deleted) and overrides (occurrences patched) again;
/// - a deletion makes the same checks, then DELETE with `If-Match`; an event already gone drops its record.
///
/// A failure of one item is reported and the others go on; a failure of Graph as a whole (the sign-in
/// refused, Graph unavailable) stops the run with that error, everything done before it recorded.
///
/// The caller holds the pairing's ``SyncLock``.
public struct SyncPush {
    public let client: GraphClient
    public let state: SyncState
    public let pairing: SyncPairing
    public let folder: VdirFolder
    public var settings: PushSettings
    /// Tests only: runs after an action's checks, right before its write (Graph changed meanwhile: a 412).
    var beforeWriting: ((PushAction) throws -> Void)?
    /// Tests only: runs after Graph confirmed an action and before the state records it (a crash there).
    var beforeRecording: ((PushAction) throws -> Void)?

    public init(
        client: GraphClient, state: SyncState, pairing: SyncPairing, folder: VdirFolder,
        settings: PushSettings = PushSettings()
    ) {
        self.client = client
        self.state = state
        self.pairing = pairing
        self.folder = folder
        self.settings = settings
    }

    /// The path of the item `name`, as messages name it.
    func path(_ name: String) -> String {
        folder.path + "/" + name
    }
}
