import Foundation
import GraphICS
import GraphICSServe

#if canImport(Glibc)
    import Glibc
#endif

/// `dav.json` in graph-ics's configuration folder (`GRAPH_ICS_CONFIG_DIR`, the token store's folder): the
/// CalDAV logins that `graph-ics dav` changes and `graph-ics serve` checks requests against.
///
/// The file is a JSON object, `{"version": 1, "logins": [...]}`, written pretty-printed with sorted keys. It
/// holds password hashes, so it is kept like the tokens and `feeds.json`: the folder `0700`, the file `0600`
/// whatever the umask, replaced atomically (``AtomicFile``), so a reader sees the old logins or the new ones.
/// ``update(_:)`` holds an exclusive `flock` on `dav.json.lock` from reading to renaming, so two `dav add`s at
/// once both land.
///
/// Thread-safety: a value without shared state; processes and threads are kept apart by the lock.
public struct DAVLoginStore: Sendable {
    /// The version of the file's format this graph-ics writes and reads.
    public static let formatVersion = 1
    /// Files larger than this are not logins graph-ics wrote.
    static let largestFile = 16 << 20

    /// The file.
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// `<config>/dav.json`.
    public static func path(configDirectory: String) -> String {
        (configDirectory as NSString).appendingPathComponent("dav.json")
    }

    /// The folder holding the file.
    var directory: String { (path as NSString).deletingLastPathComponent }

    /// The stored logins; no file is no logins.
    ///
    /// - Throws: ``DAVLoginError`` naming the file: `.damaged` (not JSON, a bad login, a newer format), `.io`
    ///   when it cannot be read, `.insecure` when it belongs to another user.
    public func load() throws(DAVLoginError) -> [DAVLogin] {
        guard let data = try readFile() else { return [] }
        return try DAVLoginFile.decode(data, path: path)
    }

    /// Replaces the stored logins by `logins`: a `0600` file in a `0700` folder (created when missing),
    /// written atomically.
    public func save(_ logins: [DAVLogin]) throws(DAVLoginError) {
        try prepareDirectory()
        try write(logins)
    }

    /// Changes the stored logins under the lock: reads them, lets `change` edit them, writes them back (only
    /// when they changed). Returns what `change` returned.
    ///
    /// - Throws: what `change` throws (nothing is written then), or ``DAVLoginError``.
    public func update<T>(_ change: (inout [DAVLogin]) throws -> T) throws -> T {
        try prepareDirectory()
        let lockPath = path + ".lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw DAVLoginError.posix(.io, "graph-ics cannot lock", path: lockPath, errno: errno) }
        // Closing the descriptor releases the lock; the lock file stays (removing it would let two processes
        // lock two different files).
        defer { close(fd) }
        switch FileLocking.lockExclusively(fd, timeout: .seconds(30), interval: .milliseconds(10)) {
        case .locked: break
        case .timedOut:
            throw DAVLoginError(.io, "graph-ics cannot lock \(lockPath): another graph-ics held it for 30 s")
        case .failed(let number):
            throw DAVLoginError.posix(.io, "graph-ics cannot lock", path: lockPath, errno: number)
        }
        let stored = try load()
        var logins = stored
        let result = try change(&logins)
        if logins != stored { try write(logins) }
        return result
    }

    /// The file's device, inode, size and modification time, for noticing that another process replaced
    /// it (every write is a rename, so a new inode); nil when there is no file.
    func stamp() -> DAVLoginFileStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return DAVLoginFileStamp(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modificationNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    private func prepareDirectory() throws(DAVLoginError) {
        do {
            try FeedStore.preparePrivateFolder(directory)
        } catch {
            throw DAVLoginError(error)
        }
    }

    private func readFile() throws(DAVLoginError) -> Data? {
        do {
            return try FeedStore.readPrivateFile(path, holding: "CalDAV logins")
        } catch {
            throw DAVLoginError(error)
        }
    }

    private func write(_ logins: [DAVLogin]) throws(DAVLoginError) {
        let data = try DAVLoginFile.encode(logins, path: path)
        do {
            try AtomicFile(path, permissions: .exactly(0o600)).write(data)
        } catch {
            throw .posix(.io, error.what, path: error.path, errno: error.errno)
        }
    }
}

/// What `stat` says of `dav.json`; equal stamps mean the file was not replaced.
struct DAVLoginFileStamp: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modificationNanoseconds: Int64
}

/// The JSON of `dav.json`.
enum DAVLoginFile {
    struct Contents: Codable {
        var version: Int
        var logins: [DAVLogin]
    }

    static func encode(_ logins: [DAVLogin], path: String) throws(DAVLoginError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        do {
            return try encoder.encode(Contents(version: DAVLoginStore.formatVersion, logins: logins)) + Data("\n".utf8)
        } catch {
            throw DAVLoginError(.damaged, "graph-ics could not encode the logins for \(path): \(error)")
        }
    }

    static func decode(_ data: Data, path: String) throws(DAVLoginError) -> [DAVLogin] {
        struct Version: Decodable { var version: Int? }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let contents: Contents
        do {
            if let version = try decoder.decode(Version.self, from: data).version,
                version > DAVLoginStore.formatVersion
            {
                throw DAVLoginError(
                    .damaged,
                    "\(path) was written by a newer graph-ics (format \(version)); use that version, or remove the file"
                )
            }
            contents = try decoder.decode(Contents.self, from: data)
        } catch let error as DAVLoginError {
            throw error
        } catch let error as DecodingError {
            throw DAVLoginError(
                .damaged, "\(path) is damaged: \(FeedStore.describe(error, in: data)); fix or remove it")
        } catch {
            throw DAVLoginError(.damaged, "\(path) is damaged: \(error); fix or remove it")
        }
        var seen = Set<String>()
        for (index, login) in contents.logins.enumerated() {
            if let problem = login.problem() {
                throw DAVLoginError(.damaged, "\(path) is damaged: logins[\(index)]: \(problem)")
            }
            guard seen.insert(login.user).inserted else {
                throw DAVLoginError(.damaged, "\(path) is damaged: logins[\(index)]: a second login '\(login.user)'")
            }
        }
        return contents.logins
    }
}
