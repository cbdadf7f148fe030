import Foundation
import GraphICSMirror
import ICalBridge

/// What one pull did, item by item, for the report of `graph-ics sync`.
public struct PullReport: Sendable {
    /// Why the pull read the whole window instead of the changes since the last one.
    public enum Round: String, Codable, Sendable {
        /// The last delta link was resumed (on a calendar without delta: the stored window was read again
        /// and compared by change key).
        case changes
        /// Nothing was stored (a first sync, or one started over).
        case first
        /// Graph answered 410 for the stored delta link: the window was read again and compared.
        case resync
        /// The stored window no longer covers the one asked for: a new window was read.
        case reanchored
    }

    /// What happened to one item file.
    public enum Action: String, Codable, Sendable {
        case new, changed, deleted
    }

    public struct PulledItem: Equatable, Codable, Sendable {
        public var fileName: String
        public var uid: String
        public var action: Action

        public init(fileName: String, uid: String, action: Action) {
            self.fileName = fileName
            self.uid = uid
            self.action = action
        }
    }

    /// An item whose local file differs from what the last sync recorded while Graph changed or removed it:
    /// the file was left as it is and Graph's version was not written (the push and conflict layer decides).
    public struct KeptLocalChange: Equatable, Codable, Sendable {
        public var fileName: String
        /// The UID, when known (from the record or from Graph's version).
        public var uid: String?
        /// What the pull would have done.
        public var wouldHave: Action

        public init(fileName: String, uid: String?, wouldHave: Action) {
            self.fileName = fileName
            self.uid = uid
            self.wouldHave = wouldHave
        }
    }

    /// An item by file and UID.
    public struct ItemName: Equatable, Codable, Sendable {
        public var fileName: String
        public var uid: String

        public init(fileName: String, uid: String) {
            self.fileName = fileName
            self.uid = uid
        }
    }

    /// An item the round no longer showed whose deletion Graph could not confirm (the GET failed): its file
    /// and record stay, and the next run asks again.
    public struct Unconfirmed: Equatable, Codable, Sendable {
        public var fileName: String
        public var uid: String
        public var reason: String
        public var requestID: String?

        public init(fileName: String, uid: String, reason: String, requestID: String?) {
            self.fileName = fileName
            self.uid = uid
            self.reason = reason
            self.requestID = requestID
        }
    }

    public var round: Round
    public var pulled: [PulledItem] = []
    /// Items found outside the window for the first time (their files stay).
    public var outsideWindow: [ItemName] = []
    /// Items whose deletion Graph could not confirm (their files stay).
    public var unconfirmed: [Unconfirmed] = []
    /// How many items Graph was asked about before a file was deleted.
    public var confirmations = 0
    public var keptLocalChanges: [KeptLocalChange] = []
    /// Problems converting single events or series (named by id and subject); those items were left out.
    public var diagnostics: [Diagnostic] = []
    /// Items Graph reported whose file already held exactly Graph's version.
    public var unchanged = 0
    /// The window the stored delta link (or, on a calendar without delta, the stored window) now covers.
    public var window: SyncWindow
}
