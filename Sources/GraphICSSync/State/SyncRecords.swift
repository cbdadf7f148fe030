import Foundation
import GraphICS
import GraphICSMirror

/// What one sync pairing is keyed by: the account, the calendar and the folder's real path.
public struct SyncPairingKey: Hashable, Sendable {
    /// The signed-in account (its user principal name), or the mailbox a `--user` run works on.
    public var account: String
    /// Graph's id of the calendar.
    public var calendarID: String
    /// The folder's real path (``VdirFolder/path``), so that two spellings of one folder are one pairing.
    public var folder: String

    public init(account: String, calendarID: String, folder: String) {
        self.account = account
        self.calendarID = calendarID
        self.folder = folder
    }

    /// The key for `folder` (its real path).
    public init(account: String, calendarID: String, folder: VdirFolder) {
        self.init(account: account, calendarID: calendarID, folder: folder.path)
    }
}

/// A pairing as the state knows it: its key and the row id its items hang off.
public struct SyncPairing: Hashable, Sendable {
    public var id: Int64
    public var key: SyncPairingKey
}

/// One item as it was at the end of the last sync that touched it: the file, the Graph event, and how to
/// tell later whether either side changed.
public struct SyncItemRecord: Equatable, Sendable {
    /// The file name inside the folder (the key of the item within its pairing).
    public var fileName: String
    /// The iCalendar UID (one per file: a series' master and its overrides share it).
    public var uid: String
    /// Graph's id of the event, for a series the master's (occurrences are looked up from it); nil for a
    /// local item whose create has not been confirmed yet.
    public var graphID: String?
    /// Graph's `changeKey` (or the `@odata.etag` it is sent as in `If-Match`) at the last sync.
    public var changeKey: String?
    /// The file's size, modification time (nanoseconds since 1970) and SHA-256 at the last sync.
    public var size: Int64
    public var modificationNanoseconds: Int64
    public var sha256: Data
    /// Whether Graph confirmed the event outside the window the pull follows (a GET answered it after a
    /// round no longer showed it): its file stays, and rounds that compare the window do not ask about it
    /// again until Graph reports it or the window is re-anchored.
    public var outsideWindow: Bool
    /// The hash of the file when a push last held the item (Graph would have mailed its attendees; empty for
    /// a deletion held); nil when it was not held.
    public var heldSHA256: Data?

    public init(
        fileName: String, uid: String, graphID: String?, changeKey: String?, size: Int64,
        modificationNanoseconds: Int64, sha256: Data, outsideWindow: Bool = false, heldSHA256: Data? = nil
    ) {
        self.fileName = fileName
        self.uid = uid
        self.graphID = graphID
        self.changeKey = changeKey
        self.size = size
        self.modificationNanoseconds = modificationNanoseconds
        self.sha256 = sha256
        self.outsideWindow = outsideWindow
        self.heldSHA256 = heldSHA256
    }

    /// Whether `entry` (a fresh `stat`) shows the file as it was recorded: same size and modification
    /// time. When it does not, the file is read and its hash compared before calling it changed.
    public func matches(_ entry: VdirEntry) -> Bool {
        entry.size == size && entry.modificationNanoseconds == modificationNanoseconds
    }
}

/// Where the last pull of a pairing stopped: its ``MirrorCursor`` (written as text; a state from before the
/// mirror holds Graph's `@odata.deltaLink` here) and the pairing's window.
public struct DeltaCheckpoint: Equatable, Sendable {
    public var link: String
    public var window: SyncWindow

    public init(link: String, window: SyncWindow) {
        self.link = link
        self.window = window
    }
}
