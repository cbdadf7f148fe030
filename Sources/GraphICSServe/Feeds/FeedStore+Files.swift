import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// The system calls behind FeedStore: the private folder, reading, the atomic write, the lock.
extension FeedStore {
    func prepareDirectory() throws(FeedStoreError) {
        try Self.preparePrivateFolder(directory.path)
    }

    func readFile() throws(FeedStoreError) -> Data? {
        try Self.readPrivateFile(fileURL.path, holding: "feed secrets")
    }

    /// Creates the folder `path` (and missing parents) `0700`; an existing folder of this user open to
    /// others is made `0700`, one of another user or a shared one (`/tmp`) is refused. For `feeds.json`'s
    /// folder and the other private files of the configuration folder (`dav.json`).
    public static func preparePrivateFolder(_ path: String) throws(FeedStoreError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            guard errno == ENOENT else { throw .posix(.io, "graph-ics cannot use", path: path, errno: errno) }
            try makeDirectories(path)
            return
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw FeedStoreError(.io, "\(path) is not a folder; move that file away")
        }
        guard info.st_uid == geteuid(), info.st_mode & (S_ISVTX | S_IWOTH) == 0 else {
            throw FeedStoreError(
                .insecure,
                "\(path) belongs to another user or is shared; set GRAPH_ICS_CONFIG_DIR to a folder of your own")
        }
        if info.st_mode & 0o077 != 0, chmod(path, 0o700) != 0 {
            throw .posix(.insecure, "graph-ics cannot make private (chmod 700)", path: path, errno: errno)
        }
    }

    private static func makeDirectories(_ path: String) throws(FeedStoreError) {
        let parent = (path as NSString).deletingLastPathComponent
        var info = stat()
        if !parent.isEmpty, parent != path, stat(parent, &info) != 0 {
            guard errno == ENOENT else { throw .posix(.io, "graph-ics cannot create", path: parent, errno: errno) }
            try makeDirectories(parent)
        }
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw .posix(.io, "graph-ics cannot create", path: path, errno: errno)
        }
        // mkdir's mode is filtered through the umask; set it exactly.
        if chmod(path, 0o700) != 0 { throw .posix(.io, "graph-ics cannot make private", path: path, errno: errno) }
    }

    /// The bytes of the private file `path` (at most 16 MiB), nil when there is none; a file of this user
    /// readable by others is made `0600`, one of another user is refused (it holds `what`).
    public static func readPrivateFile(_ path: String, holding what: String) throws(FeedStoreError) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw .posix(.io, "graph-ics cannot read", path: path, errno: errno)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .posix(.io, "graph-ics cannot read", path: path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG, info.st_size <= FeedStore.largestFile else {
            throw FeedStoreError(
                .damaged, "\(path) is not a file graph-ics wrote (not a small file); move it away")
        }
        guard info.st_uid == geteuid() else {
            throw FeedStoreError(
                .insecure, "\(path) belongs to another user; graph-ics does not read \(what) from it")
        }
        if info.st_mode & 0o077 != 0, fchmod(fd, 0o600) != 0 {
            throw .posix(.insecure, "graph-ics cannot make private (chmod 600)", path: path, errno: errno)
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw .posix(.io, "graph-ics cannot read", path: path, errno: errno) }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }
}

/// An exclusive `flock` on `feeds.json.lock`, held from ``FeedStore/update(_:)``'s read to its rename. The
/// lock file stays (removing it would let two processes lock two different files).
enum FeedFileLock {
    /// Runs `body` while holding the lock on `path` (created `0600` when missing); waits for another holder.
    static func holding<T>(_ path: String, _ body: () throws -> T) throws -> T {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw FeedStoreError.posix(.io, "graph-ics cannot lock", path: path, errno: errno) }
        // Closing the descriptor releases the lock.
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw FeedStoreError.posix(.io, "graph-ics cannot lock", path: path, errno: errno)
            }
        }
        return try body()
    }
}
