import Foundation
import GraphICS

/// The exclusive lock that keeps two syncs of one folder from running at once.
///
/// An `flock` on a file in the state directory named after the folder's real path (a folder paired with
/// two calendars is still one folder to write). `flock` locks belong to the open file, not the process, so
/// two opens in one process exclude each other as two processes do, and the kernel drops the lock when
/// its holder exits, however it exits: a killed sync never leaves a stale lock. The holder writes its
/// process id into the file, so that a second sync can say who it waited for.
///
/// Held until ``release()`` or `deinit`. The lock file itself is never removed (removing it would let a
/// third process lock a new file while the second still waits on the old one).
public final class SyncLock {
    /// The lock file.
    public let path: String
    private var descriptor: Int32

    /// Takes the lock for `folder` (a real path) in the state directory `directory` (created 0700 when
    /// missing), waiting up to `timeout` for a holder to finish.
    ///
    /// - Throws: ``SyncStoreError`` with ``SyncStoreError/Code/locked`` naming the holder's process id when
    ///   the wait ends first.
    public convenience init(directory: String, folder: String, timeout: Duration = .seconds(5)) throws {
        try StateDirectory.prepare(directory)
        try self.init(path: Self.path(directory: directory, folder: folder), folder: folder, timeout: timeout)
    }

    /// Takes the lock on the file at `path`; `folder` names what it guards in messages.
    public init(path: String, folder: String, timeout: Duration = .seconds(5)) throws {
        self.path = path
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw SyncStoreError.posix(.badLocation, "graph-ics cannot open the lock file", path: path, errno: errno)
        }
        do {
            try wait(timeout: timeout, folder: folder)
            try recordHolder()
        } catch {
            close(descriptor)
            descriptor = -1
            throw error
        }
    }

    deinit {
        release()
    }

    /// The lock file for `folder`: `sync-` and the first 16 hexadecimal digits of the SHA-256 of its path.
    public static func path(directory: String, folder: String) -> String {
        let digest = SHA256.hexDigest(folder.utf8).prefix(16)
        return (directory as NSString).appendingPathComponent("sync-\(digest).lock")
    }

    /// Lets the lock go (idempotent): the process id is cleared first, while the lock is still held.
    public func release() {
        guard descriptor >= 0 else { return }
        ftruncate(descriptor, 0)
        close(descriptor)
        descriptor = -1
    }

    /// Waits for the lock, checking every 50 ms.
    private func wait(timeout: Duration, folder: String) throws {
        switch FileLocking.lockExclusively(descriptor, timeout: timeout, interval: .milliseconds(50)) {
        case .locked:
            return
        case .failed(let number):
            throw SyncStoreError.posix(.io, "graph-ics cannot lock", path: path, errno: number)
        case .timedOut:
            throw SyncStoreError(
                .locked,
                "another graph-ics sync (\(holderDescription())) is working on \(folder); "
                    + "try again when it has finished",
                path: path)
        }
    }

    /// "process 1234", from the holder's lock file; "a process that has not said which yet" when the
    /// holder has only just taken it.
    private func holderDescription() -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        let text = count > 0 ? String(decoding: bytes[0..<count], as: UTF8.self) : ""
        let firstLine = text.split(separator: "\n").first.map(String.init) ?? ""
        guard let pid = Int32(firstLine), pid > 0 else { return "a process that has not said which yet" }
        return "process \(pid)"
    }

    /// Replaces the file's contents with this process's id and a line break.
    private func recordHolder() throws {
        let line = Array("\(getpid())\n".utf8)
        guard ftruncate(descriptor, 0) == 0,
            line.withUnsafeBytes({ pwrite(descriptor, $0.baseAddress, $0.count, 0) }) == line.count
        else {
            throw SyncStoreError.posix(.io, "graph-ics cannot write its process id into", path: path, errno: errno)
        }
    }
}
