import Foundation
import GraphICS

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

/// The span of time a delta link covers, in whole seconds (UTC instants).
public struct SyncWindow: Equatable, Sendable {
    /// Seconds since 1970, start inclusive, end exclusive.
    public var start: Int64
    public var end: Int64

    public init(start: Int64, end: Int64) {
        self.start = start
        self.end = end
    }

    /// The whole seconds inside `start ..< end`: a fractional start rounds up and a fractional end down, so
    /// the stored window never claims more than the one Graph was asked for.
    public init(start: Date, end: Date) {
        self.start = Int64(start.timeIntervalSince1970.rounded(.up))
        self.end = Int64(end.timeIntervalSince1970.rounded(.down))
    }

    /// Whether this window contains all of `other` (then a delta link for this window serves it).
    public func covers(_ other: SyncWindow) -> Bool {
        start <= other.start && other.end <= end
    }
}

/// Where the last pull of a pairing stopped: Graph's `@odata.deltaLink` and the window it was made for.
public struct DeltaCheckpoint: Equatable, Sendable {
    public var link: String
    public var window: SyncWindow

    public init(link: String, window: SyncWindow) {
        self.link = link
        self.window = window
    }
}
