import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension TokenStore {
    /// How long a process waits for another one's refresh of the same account before giving up.
    public static let lockTimeout: Duration = .seconds(120)

    /// The lock file of the account with this key: its account file's name with `.lock` added.
    ///
    /// The account file itself cannot carry the lock: every save renames a new file over it.
    public func lockFileURL(forAccountKey key: String) -> URL {
        directory.appendingPathComponent(TokenStore.fileName(forAccountKey: key) + ".lock", isDirectory: false)
    }

    /// Runs `body` holding the account's lock, which serialises refreshes across graph-ics processes.
    ///
    /// An exclusive `flock` on ``lockFileURL(forAccountKey:)`` (created `0600`, never removed: removing it
    /// would let a third process lock a new file while a second still waits on the old one). `flock`
    /// locks belong to the open file, so two opens in one process exclude each other as two processes do,
    /// and the kernel drops the lock when its holder exits, however it exits. Waits up to `timeout` for a
    /// holder to finish, checking every 20 ms.
    ///
    /// - Throws: ``AuthError`` with ``AuthError/Code/storeFailure`` when the lock file cannot be opened or
    ///   the wait ends first; whatever `body` throws.
    public func withLock<T>(
        accountKey key: String, timeout: Duration = TokenStore.lockTimeout, _ body: () throws(AuthError) -> T
    ) throws(AuthError) -> T {
        try prepareDirectory(create: true)
        let path = lockFileURL(forAccountKey: key).path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw AuthError.posix(.storeFailure, "graph-ics cannot open the lock file", path: path, errno: errno)
        }
        // Closing the descriptor lets the lock go.
        defer { close(descriptor) }
        try waitForLock(descriptor, path: path, accountKey: key, timeout: timeout)
        return try body()
    }

    /// Waits for the lock on `descriptor`, checking every 20 ms.
    private func waitForLock(_ descriptor: Int32, path: String, accountKey key: String, timeout: Duration)
        throws(AuthError)
    {
        switch FileLocking.lockExclusively(descriptor, timeout: timeout, interval: .milliseconds(20)) {
        case .locked:
            return
        case .failed(let number):
            throw AuthError.posix(.storeFailure, "graph-ics cannot lock", path: path, errno: number)
        case .timedOut:
            throw AuthError(
                .storeFailure,
                "Another graph-ics process has been renewing the sign-in for \(key) for longer than "
                    + "\(Int(timeout.seconds)) s (lock file \(path)); try again when it has finished."
            )
        }
    }
}
