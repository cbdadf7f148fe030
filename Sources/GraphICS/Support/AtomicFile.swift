import Foundation
import ICalBridge

#if canImport(Glibc)
    import Glibc
#endif

/// A file replaced whole, the one way graph-ics replaces a file: a temporary file beside it, written,
/// `fsync`ed, renamed over it, then the folder `fsync`ed. A reader sees the old file or the new one; a write
/// that fails part way leaves the old file as it was and removes its temporary.
///
/// Used by the token store, the configuration and feed files, serve's caches, sync's item files and `-o`
/// outputs. What differs between them is policy, set on the value:
/// - ``permissions``: a fixed mode whatever the umask (`0600` for anything private), or those of the file
///   replaced (a calendar the user made private stays private; a new file gets `0666` less the umask).
/// - ``temporaryPrefix`` / ``temporarySuffix``: the name of the temporary, prefix + six random letters or
///   digits + suffix. The usual one, `.NAME.tmp-PID-XXXXXX`, names the writing process, so that
///   ``removeLeftovers()`` can tell the temporary of a killed writer from a live writer's.
/// - ``folderSync``: whether a folder that refuses `fsync` fails the write.
///
/// Thread-safety: a value without shared state. Two writers of one file each replace it whole; the last
/// rename wins.
public struct AtomicFile: Sendable {
    /// The modes of a new file.
    public enum Permissions: Equatable, Sendable {
        /// Exactly this mode, whatever the umask.
        case exactly(mode_t)
        /// The mode of the regular file replaced, and its owner and group where the user may set them
        /// (root may; others keep their own, and the group when they belong to it). A new file: `0666` less
        /// the umask, like any file a program creates.
        case likeReplaced
    }

    /// What a failed `fsync` of the folder does.
    public enum FolderSync: Equatable, Sendable {
        /// Ignored: some file systems refuse `fsync` on folders.
        case bestEffort
        /// Fails the write (after the rename: the new file is in place, its durability not known).
        case required
    }

    /// The file replaced.
    public let path: String
    public var permissions: Permissions
    public var temporaryPrefix: String
    public var temporarySuffix: String
    public var folderSync: FolderSync

    /// The file at `path`, private (`0600`) unless told otherwise, with the usual temporaries.
    public init(_ path: String, permissions: Permissions = .exactly(0o600), folderSync: FolderSync = .bestEffort) {
        self.path = path
        self.permissions = permissions
        temporaryPrefix = Self.usualPrefix(of: (path as NSString).lastPathComponent)
        temporarySuffix = ""
        self.folderSync = folderSync
    }

    /// The folder holding the file.
    public var folder: String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// Replaces the file by `data`, after removing the temporaries a killed writer of it left behind.
    public func write(_ data: Data) throws(AtomicFileError) {
        removeLeftovers()
        let replacement = try begin()
        try replacement.write(data)
        _ = try replacement.commit()
    }

    /// A new temporary, open for writing, with the file's ``permissions``.
    public func begin() throws(AtomicFileError) -> Replacement {
        let (descriptor, temporary) = try createTemporary()
        let replacement = Replacement(file: self, descriptor: descriptor, temporaryPath: temporary)
        try replacement.setPermissions()
        return replacement
    }

    private func createTemporary() throws(AtomicFileError) -> (Int32, String) {
        let mode: mode_t
        switch permissions {
        case .exactly(let exact): mode = exact
        case .likeReplaced: mode = 0o666
        }
        var number: Int32 = EEXIST
        for _ in 0..<16 {
            let temporary = folder + "/" + temporaryPrefix + Self.randomLetters() + temporarySuffix
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
            if descriptor >= 0 { return (descriptor, temporary) }
            number = errno
            guard number == EEXIST || number == EINTR else { break }
        }
        throw AtomicFileError(.create, path: folder, errno: number)
    }

    private static func randomLetters() -> String {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<6).map { _ in letters.randomElement() ?? "X" })
    }

    // MARK: Leftovers

    /// `.NAME.tmp-`: the start of the usual temporaries of the file `NAME`; the writer's process id and a
    /// `-` follow.
    public static func usualPrefix(of name: String, pid: Int32 = getpid()) -> String {
        leftoverPrefix(of: name) + "\(pid)-"
    }

    private static func leftoverPrefix(of name: String) -> String {
        "." + name + ".tmp-"
    }

    /// Removes the usual temporaries of this file whose writing process no longer runs; a live writer's
    /// stay, and so do those of other files. Best effort: what cannot be listed or removed stays.
    @discardableResult
    public func removeLeftovers() -> Int {
        let prefix = Self.leftoverPrefix(of: (path as NSString).lastPathComponent)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return 0 }
        var removed = 0
        for entry in names where entry.hasPrefix(prefix) {
            guard let pid = Int32(entry.dropFirst(prefix.count).prefix { $0 != "-" }) else { continue }
            if kill(pid, 0) != 0, errno == ESRCH, unlink(folder + "/" + entry) == 0 { removed += 1 }
        }
        return removed
    }

    // MARK: The folder

    /// `fsync` of `folder`, so that a rename or unlink in it survives a crash.
    public static func syncFolder(_ folder: String) throws(AtomicFileError) {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw AtomicFileError(.syncFolder, path: folder, errno: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw AtomicFileError(.syncFolder, path: folder, errno: errno) }
    }

    func syncFolderAsTold() throws(AtomicFileError) {
        do {
            try Self.syncFolder(folder)
        } catch {
            if folderSync == .required { throw error }
        }
    }
}

extension AtomicFile {
    /// A temporary being written: its descriptor is the caller's to write to (or ``write(_:)-swift.method``).
    /// ``commit()`` puts it in place; ``prepare()`` makes it ready for a later ``Prepared/moveIntoPlace()``.
    /// Dropped before either, or on ``discard()``, the temporary goes and the file stays as it was.
    ///
    /// Not Sendable: one thread writes it. The ``Prepared`` file it becomes may go to another.
    public final class Replacement {
        public let file: AtomicFile
        public let descriptor: Int32
        public let temporaryPath: String
        private var isOpen = true
        private var ownsTemporary = true

        init(file: AtomicFile, descriptor: Int32, temporaryPath: String) {
            self.file = file
            self.descriptor = descriptor
            self.temporaryPath = temporaryPath
        }

        deinit {
            discard()
        }

        func setPermissions() throws(AtomicFileError) {
            switch file.permissions {
            case .exactly(let mode):
                // open's mode is filtered through the umask; set it exactly.
                guard fchmod(descriptor, mode) == 0 else {
                    throw AtomicFileError(.permissions, path: file.path, errno: errno)
                }
            case .likeReplaced:
                var existing = stat()
                guard lstat(file.path, &existing) == 0, existing.st_mode & S_IFMT == S_IFREG else { return }
                // Owner first: a change of owner clears the set-user-ID bits that fchmod then restores.
                if fchown(descriptor, existing.st_uid, existing.st_gid) != 0 {
                    _ = fchown(descriptor, uid_t.max, existing.st_gid)
                }
                guard fchmod(descriptor, existing.st_mode & 0o7777) == 0 else {
                    throw AtomicFileError(.permissions, path: file.path, errno: errno)
                }
            }
        }

        /// Writes all of `bytes` to the temporary.
        public func write(_ bytes: UnsafeRawBufferPointer) throws(AtomicFileError) {
            if let failure = POSIXFile.writeAll(descriptor, bytes) {
                throw AtomicFileError(.write, path: file.path, errno: failure)
            }
        }

        /// Writes all of `data` to the temporary.
        public func write(_ data: Data) throws(AtomicFileError) {
            if let failure = data.withUnsafeBytes({ POSIXFile.writeAll(descriptor, $0) }) {
                throw AtomicFileError(.write, path: file.path, errno: failure)
            }
        }

        /// `fsync`, `fstat` and `close` of the temporary: it is whole on disk, waiting to be renamed. From now
        /// on the returned value owns it.
        public func prepare() throws(AtomicFileError) -> Prepared {
            guard fsync(descriptor) == 0 else { throw AtomicFileError(.sync, path: file.path, errno: errno) }
            var status = stat()
            guard fstat(descriptor, &status) == 0 else {
                throw AtomicFileError(.sync, path: file.path, errno: errno)
            }
            isOpen = false
            guard close(descriptor) == 0 else { throw AtomicFileError(.close, path: file.path, errno: errno) }
            ownsTemporary = false
            return Prepared(file: file, temporaryPath: temporaryPath, status: status)
        }

        /// Puts the new file in place: ``prepare()``, rename, `fsync` of the folder. Returns the new file's
        /// `stat`.
        @discardableResult
        public func commit() throws(AtomicFileError) -> stat {
            let prepared = try prepare()
            try prepared.moveIntoPlace()
            try file.syncFolderAsTold()
            return prepared.status
        }

        /// Closes and removes the temporary, leaving the file as it was.
        public func discard() {
            if isOpen {
                close(descriptor)
                isOpen = false
            }
            if ownsTemporary {
                unlink(temporaryPath)
                ownsTemporary = false
            }
        }
    }

    /// A whole, `fsync`ed temporary waiting to be renamed over its file (sync renames a batch of them in
    /// order, then syncs the folder once).
    public struct Prepared: Sendable {
        public let file: AtomicFile
        public let temporaryPath: String
        /// The new file's `stat` as it will be once renamed (the temporary's inode, size and times).
        public let status: stat

        /// Renames the temporary over the file; removes the temporary when that fails. The folder is not
        /// synced (``AtomicFile/syncFolder(_:)``).
        public func moveIntoPlace() throws(AtomicFileError) {
            guard rename(temporaryPath, file.path) == 0 else {
                let number = errno
                unlink(temporaryPath)
                throw AtomicFileError(.replace, path: file.path, errno: number)
            }
        }

        /// Removes the temporary, leaving the file as it was.
        public func discard() {
            unlink(temporaryPath)
        }
    }
}

/// A step of an ``AtomicFile`` write that failed, naming the file (or the folder, for ``Step/create`` and
/// ``Step/syncFolder``) and the `errno`. Callers wrap it in their domain's error with ``what``, ``path`` and
/// ``errno``.
public struct AtomicFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Step: Equatable, Sendable {
        /// The temporary could not be created in the folder.
        case create
        case permissions
        case write
        /// `fsync` (or `fstat`) of the temporary.
        case sync
        case close
        /// The rename over the file.
        case replace
        case syncFolder
    }

    public var step: Step
    public var path: String
    public var errno: Int32

    public init(_ step: Step, path: String, errno: Int32) {
        self.step = step
        self.path = path
        self.errno = errno
    }

    /// What failed, in words that go before the path.
    public var what: String {
        switch step {
        case .create: "graph-ics cannot write in"
        case .permissions: "graph-ics cannot set the permissions of"
        case .write, .sync, .close: "graph-ics could not write"
        case .replace: "graph-ics could not replace"
        case .syncFolder: "graph-ics could not sync the folder"
        }
    }

    public var description: String {
        "\(what) \(path): \(POSIXFile.describe(errno))"
    }
}
