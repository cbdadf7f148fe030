import Foundation
import GraphICS

#if canImport(Glibc)
    import Glibc
#endif

/// `feeds.json` in graph-ics's configuration folder (`GRAPH_ICS_CONFIG_DIR`, the token store's folder): the
/// feed definitions that `graph-ics feed` changes and `graph-ics serve` serves.
///
/// The file holds the secrets of the feeds' URLs, so it is kept like the tokens: the folder is created
/// `0700`, the file is written `0600` whatever the umask, atomically (a temporary file in the same folder,
/// `fsync`, `rename`, `fsync` of the folder), so a reader sees the old definitions or the new ones, never
/// half of them. ``update(_:)`` holds an exclusive `flock` on `feeds.json.lock` from reading to renaming, so
/// two `feed add`s at once both land.
///
/// Thread-safety: a value without shared state; processes and threads are kept apart by the lock.
public struct FeedStore: Sendable {
    /// The configuration folder.
    public let directory: URL

    /// Files larger than this are not feed definitions graph-ics wrote.
    static let largestFile = 16 << 20

    public init(directory: URL) {
        self.directory = directory
    }

    /// `<directory>/feeds.json`.
    public var fileURL: URL { directory.appendingPathComponent("feeds.json", isDirectory: false) }

    /// `<directory>/feeds.json.lock`, the lock ``update(_:)`` holds.
    var lockURL: URL { directory.appendingPathComponent("feeds.json.lock", isDirectory: false) }

    /// The stored definitions; no file is an empty configuration.
    ///
    /// - Throws: ``FeedStoreError`` naming the file: `.damaged` with the line (bad JSON) or the key
    ///   (`feeds[1].secret`) at fault, `.io` when it cannot be read, `.insecure` when it belongs to another user.
    public func load() throws(FeedStoreError) -> FeedConfiguration {
        guard let data = try readFile() else { return FeedConfiguration() }
        return try FeedFileFormat.decode(data, path: fileURL.path)
    }

    /// Changes the stored definitions: locks `feeds.json.lock`, reads the file, lets `change` edit the
    /// definitions, writes them back (only when they changed) and unlocks. Returns what `change` returned.
    ///
    /// - Throws: what `change` throws (nothing is written then); ``FeedStoreError`` when the file cannot be
    ///   read, locked or written, or `.invalid` when the changed definitions are not valid.
    public func update<T>(_ change: (inout FeedConfiguration) throws -> T) throws -> T {
        try prepareDirectory()
        return try FeedFileLock.holding(lockURL.path) {
            let stored = try load()
            var configuration = stored
            let result = try change(&configuration)
            guard configuration != stored else { return result }
            if let (key, message) = configuration.problem() {
                throw FeedStoreError(.invalid, "feed definitions not saved to \(fileURL.path): \(key) \(message)")
            }
            try AtomicFile.replace(fileURL.path, with: try FeedFileFormat.encode(configuration, path: fileURL.path))
            return result
        }
    }

    /// The file's identity, size and modification time, for noticing that another process changed it;
    /// nil when there is no file.
    public func stamp() -> FeedFileStamp? {
        var info = stat()
        guard stat(fileURL.path, &info) == 0 else { return nil }
        return FeedFileStamp(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modificationNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }
}

/// What `stat` says of `feeds.json`: a rename (every write is one) gives a new inode, so equal stamps mean
/// the file was not replaced.
public struct FeedFileStamp: Sendable, Equatable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var modificationNanoseconds: Int64
}
