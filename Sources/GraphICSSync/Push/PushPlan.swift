import ICalBridge

/// What a push will send: one action per local change since the last sync, and the items that cannot be
/// pushed as they are. A value: `--dry-run` prints it, and nothing was sent or recorded to make it.
public struct PushPlan: Sendable {
    /// In file-name order, deletions last.
    public var actions: [PushAction] = []
    /// Items changed here that will not be sent: unreadable files (`failed`), files Graph cannot hold as one
    /// event (`refused`). ``SyncPush/apply(_:skipping:overriding:)`` reports them again.
    public var problems: [PushedItem] = []
    /// Warnings and errors from reading the files, each naming the file (and line, where known).
    public var diagnostics: [Diagnostic] = []
    /// The files read while planning, by name, with what they map to: a later plan of the same run
    /// (``SyncPush/plan(reusing:)``) takes a file whose stat is unchanged from here instead of reading,
    /// hashing and mapping it again.
    var reads: [String: PlannedFile] = [:]

    public init() {}

    /// How many events the push would delete in Graph (for ``MassDeletionGuard``).
    public var deletionCount: Int { actions.reduce(0) { $0 + ($1.kind == .delete && $1.graphID != nil ? 1 : 0) } }

    /// The file names of the actions.
    public var fileNames: Set<String> { Set(actions.map(\.fileName)) }
}

/// One local change to send to Graph.
public struct PushAction: Sendable {
    public enum Kind: String, Sendable {
        /// A new file: create the event (or series) with the import's mapping.
        case create
        /// A changed file: PATCH the event (a series: its master, then its occurrences).
        case update
        /// A deleted file: DELETE the event.
        case delete
    }

    /// The file name inside the folder.
    public var fileName: String
    /// The file's UID (for a deletion, the recorded one).
    public var uid: String?
    /// The file's SUMMARY (the master's, for a series); nil for a deletion.
    public var subject: String?
    public var kind: Kind
    /// Graph's id of the event the action changes or deletes; nil for a create.
    public var graphID: String?

    /// The file as read while planning (nil for a deletion): its bytes, hash and stat are what is recorded.
    var file: VdirItem?
    /// The event the file maps to (for a series, the master with its follow-ups).
    var event: PlannedEvent?
    /// What the last sync recorded for the item (nil for a new file).
    var record: SyncItemRecord?
    /// For a file renamed here (its UID's record names a file now gone): that record's file name, replaced
    /// by this one when the action is recorded.
    var renamedFrom: String?
}

/// A changed file as a plan read it: its bytes and hash, and its event or why it has none.
struct PlannedFile: Sendable {
    var file: VdirItem
    var mapping: Mapping

    struct Mapping: Sendable {
        /// The one event (or series) of the file; nil when it holds none or cannot be pushed (`problem`).
        var event: PlannedEvent?
        /// Why the file cannot be pushed (failed or refused); nil for an event, or a file without one (a
        /// to-do, left alone).
        var problem: PushedItem?
        var diagnostics: [Diagnostic] = []
    }
}
