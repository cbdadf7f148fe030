import Foundation
import ICalBridge

/// Where graph-ics keeps its state: `sync`'s database, locks and conflict copies, serve's feed caches, the
/// small caches of the mailbox's zone and the signed-in user. Never inside a synced folder (khal and
/// vdirsyncer would see the files).
public enum StateDirectory {
    /// `$GRAPH_ICS_STATE_DIR`, else `$XDG_STATE_HOME/graph-ics`, else `~/.local/state/graph-ics`.
    public static func path(_ environment: [String: String]) throws(StateDirectoryError) -> String {
        if let directory = environment["GRAPH_ICS_STATE_DIR"], !directory.isEmpty {
            return directory
        }
        // The XDG base directory spec ignores relative values.
        if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") {
            return (xdg as NSString).appendingPathComponent("graph-ics")
        }
        if let home = environment["HOME"].flatMap({ $0.isEmpty ? nil : $0 }) ?? passwordDatabaseHome() {
            return ((home as NSString).appendingPathComponent(".local/state") as NSString)
                .appendingPathComponent("graph-ics")
        }
        throw StateDirectoryError("graph-ics cannot find a home directory for its sync state: set GRAPH_ICS_STATE_DIR.")
    }

    /// Creates `path` and its missing parents, each directory it creates with mode exactly 0700. A directory
    /// that already exists keeps its mode (`GRAPH_ICS_STATE_DIR` may name a folder shared on purpose).
    public static func prepare(_ path: String) throws(StateDirectoryError) {
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else {
                throw StateDirectoryError("the sync state's place is not a folder; move that file away", path: path)
            }
            return
        }
        guard errno == ENOENT else {
            throw .posix("graph-ics cannot use the sync state folder", path: path, errno: errno)
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path {
            try prepare(parent)
        }
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw .posix("graph-ics cannot create the sync state folder", path: path, errno: errno)
        }
        // mkdir's mode is filtered through the umask; set it exactly.
        if chmod(path, 0o700) != 0 {
            throw .posix("graph-ics cannot make private", path: path, errno: errno)
        }
    }

    private static func passwordDatabaseHome() -> String? {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        let home = String(cString: directory)
        return home.isEmpty ? nil : home
    }
}

/// The state directory cannot be found or used (not a folder, not creatable): the message, the path.
/// Described as `"<path>: <message>"`, as sync's own errors are.
public struct StateDirectoryError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var path: String?
    /// The `errno` of the failed call, when one failed.
    public var errno: Int32?

    public init(_ message: String, path: String? = nil, errno: Int32? = nil) {
        self.message = message
        self.path = path
        self.errno = errno
    }

    /// A failed POSIX call: `"<what>: <strerror>"`.
    static func posix(_ what: String, path: String, errno number: Int32) -> StateDirectoryError {
        StateDirectoryError("\(what): \(POSIXFile.describe(number))", path: path, errno: number)
    }

    public var description: String {
        if let path { return "\(path): \(message)" }
        return message
    }
}
