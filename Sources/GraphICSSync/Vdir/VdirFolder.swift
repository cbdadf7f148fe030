import Foundation
import GraphICS
import ICalBridge

/// One item file as a scan sees it: what `stat` says, nothing read.
public struct VdirEntry: Equatable, Sendable {
    /// The file name inside the folder (`UID.ics`, or whatever name another tool gave it).
    public var name: String
    public var size: Int64
    /// The modification time in nanoseconds since 1970.
    public var modificationNanoseconds: Int64
    public var inode: UInt64

    init(name: String, _ status: stat) {
        self.name = name
        size = Int64(status.st_size)
        modificationNanoseconds = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        inode = UInt64(status.st_ino)
    }
}

/// One item file read: its bytes, their SHA-256, and the `stat` taken before reading.
public struct VdirItem: Equatable, Sendable {
    public var entry: VdirEntry
    public var contents: Data
    /// SHA-256 of ``contents`` (32 bytes).
    public var sha256: Data
}

/// The collection metadata files of a vdir (no extension, so never taken for items).
public enum VdirMetadata: String, CaseIterable, Sendable {
    /// The calendar's name, UTF-8.
    case displayName = "displayname"
    /// `#RRGGBB`.
    case color
}

/// A vdir collection: a folder of `.ics` files, one item each, as vdirsyncer's "The Vdir Storage
/// Format" describes it and khal and vdirsyncer read it.
///
/// Items are the regular files whose names end in `.ics` and do not start with `.`; graph-ics reads,
/// writes and deletes only those it is asked to, and leaves every other file (VTODO items under other
/// names, `.vcf`, notes) alone. Writes are atomic and durable: a temporary file `.graph-ics-….tmp` in the
/// same folder (hidden and with the `.tmp` extension the format reserves, so no reader takes it for an
/// item) with the replaced file's permissions, fsync, rename over the item, fsync of the folder. A reader
/// sees the old file or the new one, never a part; a write that fails leaves the old file and removes its
/// temporary.
///
/// A value type holding the folder's real path; safe to use from several threads (each call opens what
/// it needs), though two writers of one item must be kept apart by the caller (the pairing's lock).
public struct VdirFolder: Sendable {
    /// The folder's real path (`realpath`: symbolic links resolved), the path the state is keyed by.
    public let path: String

    static let temporaryPrefix = ".graph-ics-"
    static let temporarySuffix = ".tmp"

    /// The folder at `path`, which must exist and be a directory.
    public init(path: String) throws {
        guard let resolved = realpath(path, nil) else {
            throw SyncStoreError.posix(.badLocation, "graph-ics cannot open the folder", path: path, errno: errno)
        }
        defer { free(resolved) }
        let real = String(cString: resolved)
        guard POSIXFile.kind(of: real) == .directory else {
            throw SyncStoreError(.badLocation, "not a folder; sync needs a folder of .ics files", path: path)
        }
        self.path = real
    }

    func filePath(_ name: String) -> String {
        path + "/" + name
    }

    // MARK: Scanning and reading

    /// Every item file (`*.ics`, not hidden, regular: symbolic links followed), sorted by name, from `stat`
    /// alone. Names that are not UTF-8 are left out (and left alone).
    public func scan() throws -> [VdirEntry] {
        guard let directory = opendir(path) else {
            throw SyncStoreError.posix(.io, "graph-ics cannot list the folder", path: path, errno: errno)
        }
        defer { closedir(directory) }
        let descriptor = dirfd(directory)
        var entries: [VdirEntry] = []
        while true {
            // readdir reports an error only through errno, and only changes it then.
            errno = 0
            guard let record = readdir(directory) else {
                guard errno == 0 else {
                    throw SyncStoreError.posix(.io, "graph-ics cannot list the folder", path: path, errno: errno)
                }
                break
            }
            guard let name = Self.name(of: record), VdirFileName.isItemName(name) else { continue }
            var status = stat()
            guard fstatat(descriptor, name, &status, 0) == 0 else {
                // Removed between readdir and stat (another tool), or a dangling link: not an item now.
                if errno == ENOENT { continue }
                throw SyncStoreError.posix(.io, "graph-ics cannot stat", path: filePath(name), errno: errno)
            }
            if status.st_mode & S_IFMT == S_IFREG {
                entries.append(VdirEntry(name: name, status))
            }
        }
        return entries.sorted { $0.name < $1.name }
    }

    private static func name(of record: UnsafeMutablePointer<dirent>) -> String? {
        withUnsafePointer(to: &record.pointee.d_name) { tuple in
            tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                String(validatingCString: $0)
            }
        }
    }

    /// The entry of the item `name` from `stat` alone; nil when there is no such regular file.
    public func entry(_ name: String) throws -> VdirEntry? {
        try checkItemName(name)
        var status = stat()
        guard stat(filePath(name), &status) == 0 else {
            if errno == ENOENT { return nil }
            throw SyncStoreError.posix(.io, "graph-ics cannot stat", path: filePath(name), errno: errno)
        }
        return status.st_mode & S_IFMT == S_IFREG ? VdirEntry(name: name, status) : nil
    }

    /// Reads the item `name` whole and hashes it. The `stat` is taken before reading, so an edit made while
    /// reading shows as a newer modification time at the next scan, never as a recorded one.
    public func read(_ name: String) throws -> VdirItem {
        try checkItemName(name)
        let descriptor = open(filePath(name), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SyncStoreError.posix(.io, "graph-ics cannot read", path: filePath(name), errno: errno)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw SyncStoreError.posix(.io, "graph-ics cannot stat", path: filePath(name), errno: errno)
        }
        let contents = try readAll(descriptor, name: name)
        return VdirItem(entry: VdirEntry(name: name, status), contents: contents, sha256: SHA256.hash(contents))
    }

    private func readAll(_ descriptor: Int32, name: String) throws -> Data {
        var contents = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                throw SyncStoreError.posix(.io, "graph-ics cannot read", path: filePath(name), errno: errno)
            }
            if count == 0 { return contents }
            contents.append(contentsOf: buffer[0..<count])
        }
    }

    // MARK: Writing and deleting

    /// Replaces (or creates) the item `name` with `contents`, atomically and durably, and returns the new
    /// file's entry (what the state records).
    @discardableResult
    public func write(_ contents: Data, to name: String) throws -> VdirEntry {
        try checkItemName(name)
        return try replace(name, with: contents)
    }

    /// Any file of the folder (an item or a metadata file) replaced by `contents`, atomically.
    func replace(_ name: String, with contents: Data) throws -> VdirEntry {
        try writeAtomically(name) { try fill($0, with: contents, for: name) }
    }

    /// Writes all of `contents` to a temporary of the item `name`.
    func fill(_ descriptor: Int32, with contents: Data, for name: String) throws {
        let failure = contents.withUnsafeBytes { POSIXFile.writeAll(descriptor, $0) }
        if let failure {
            throw SyncStoreError.posix(.io, "graph-ics cannot write", path: filePath(name), errno: failure)
        }
    }

    /// Removes the item `name` and syncs the folder; false when there was no such file.
    @discardableResult
    public func delete(_ name: String) throws -> Bool {
        try checkItemName(name)
        guard unlink(filePath(name)) == 0 else {
            if errno == ENOENT { return false }
            throw SyncStoreError.posix(.io, "graph-ics cannot delete", path: filePath(name), errno: errno)
        }
        try syncFolder()
        return true
    }

    /// Removes the temporaries a killed run left behind. Call it only while holding the pairing's lock (a
    /// running write's temporary would go too).
    @discardableResult
    public func removeLeftoverTemporaries() throws -> Int {
        guard let listing = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            throw SyncStoreError(.io, "graph-ics cannot list the folder", path: path)
        }
        let names = listing.filter(Self.isTemporaryName)
        for name in names {
            guard unlink(filePath(name)) == 0 || errno == ENOENT else {
                throw SyncStoreError.posix(.io, "graph-ics cannot remove", path: filePath(name), errno: errno)
            }
        }
        return names.count
    }

    static func isTemporaryName(_ name: String) -> Bool {
        name.hasPrefix(temporaryPrefix) && name.hasSuffix(temporarySuffix)
    }

    /// The item or metadata file `name` as an ``AtomicFile``: its temporaries `.graph-ics-XXXXXX.tmp`, the
    /// replaced file's permissions, the folder's `fsync` required.
    func atomicFile(_ name: String) -> AtomicFile {
        var file = AtomicFile(filePath(name), permissions: .likeReplaced, folderSync: .required)
        file.temporaryPrefix = Self.temporaryPrefix
        file.temporarySuffix = Self.temporarySuffix
        return file
    }

    /// Writes a temporary through `fill`, then fsync, rename over `name`, fsync of the folder. When `fill`
    /// or any step throws, the temporary is removed and `name` is untouched.
    func writeAtomically(_ name: String, fill: (Int32) throws -> Void) throws -> VdirEntry {
        let prepared = try prepareTemporary(for: name, fill: fill)
        try moveIntoPlace(prepared)
        try syncFolder()
        return prepared.entry
    }

    /// A filled, fsynced temporary waiting to be renamed over its item.
    struct PreparedFile: Sendable {
        var file: AtomicFile.Prepared
        /// The item's entry as it will be once renamed (the temporary's inode, size and time).
        var entry: VdirEntry
    }

    /// Creates a temporary for `name`, fills it through `fill` and fsyncs it; removes it when anything
    /// fails.
    func prepareTemporary(for name: String, fill: (Int32) throws -> Void) throws -> PreparedFile {
        do {
            let replacement = try atomicFile(name).begin()
            try fill(replacement.descriptor)
            let prepared = try replacement.prepare()
            return PreparedFile(file: prepared, entry: VdirEntry(name: name, prepared.status))
        } catch let error as AtomicFileError {
            throw SyncStoreError(error)
        }
    }

    /// Renames a prepared temporary over its item; removes the temporary when that fails.
    func moveIntoPlace(_ prepared: PreparedFile) throws {
        do {
            try prepared.file.moveIntoPlace()
        } catch {
            throw SyncStoreError(error)
        }
    }

    /// fsync of the folder itself, so that a rename or unlink survives a crash.
    func syncFolder() throws {
        do {
            try AtomicFile.syncFolder(path)
        } catch {
            throw SyncStoreError(error)
        }
    }

    func checkItemName(_ name: String) throws {
        guard VdirFileName.isItemName(name), !name.contains("/"), name.utf8.count <= 255 else {
            throw SyncStoreError(.invalidValue, "\"\(name)\" is not the name of an item file", path: path)
        }
    }
}
