import Foundation

/// Where `sync` keeps its state: the database, the locks, later the conflict copies. Never inside the
/// synced folder (khal and vdirsyncer would see the files).
public enum SyncStateDirectory {
    /// `$GRAPH_ICS_STATE_DIR`, else `$XDG_STATE_HOME/graph-ics`, else `~/.local/state/graph-ics`.
    public static func path(_ environment: [String: String]) throws -> String {
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
        throw SyncStoreError(
            .badLocation, "graph-ics cannot find a home directory for its sync state: set GRAPH_ICS_STATE_DIR.")
    }

    /// Creates `path` and its missing parents, each directory it creates with mode exactly 0700. A directory
    /// that already exists keeps its mode (`GRAPH_ICS_STATE_DIR` may name a folder shared on purpose).
    public static func prepare(_ path: String) throws {
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else {
                throw SyncStoreError(
                    .badLocation, "the sync state's place is not a folder; move that file away", path: path)
            }
            return
        }
        guard errno == ENOENT else {
            throw SyncStoreError.posix(
                .badLocation, "graph-ics cannot use the sync state folder", path: path, errno: errno)
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path {
            try prepare(parent)
        }
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw SyncStoreError.posix(
                .badLocation, "graph-ics cannot create the sync state folder", path: path, errno: errno)
        }
        // mkdir's mode is filtered through the umask; set it exactly.
        if chmod(path, 0o700) != 0 {
            throw SyncStoreError.posix(.badLocation, "graph-ics cannot make private", path: path, errno: errno)
        }
    }

    private static func passwordDatabaseHome() -> String? {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        let home = String(cString: directory)
        return home.isEmpty ? nil : home
    }
}
