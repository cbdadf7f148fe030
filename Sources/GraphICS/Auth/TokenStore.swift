import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The files in which graph-ics keeps signed-in accounts: one JSON file per account.
///
/// Layout: `<config dir>/account-<percent-encoded account key>.json`, for example
/// `~/.config/graph-ics/account-login.microsoftonline.com%2Fcommon%2F0f1e….json`.
///
/// Permissions, whatever the umask: the directory is created `0700` (missing parents too) and each file
/// `0600`. A directory that already exists but is open to group or others is tightened to `0700`
/// (graph-ics put it there, or the user made it so; either way tokens must not be readable), and a token
/// file found looser than `0600` is tightened when read. Refused with
/// ``AuthError/Code/insecureConfiguration`` instead: a directory or file owned by another user (graph-ics
/// cannot make it private), and a shared directory — world-writable or sticky, like `/tmp` — whose mode
/// graph-ics must not change.
///
/// Writes are atomic (``AtomicFile``): the JSON goes to a temporary file in the same directory, created
/// `0600` from the start (`open(O_CREAT|O_EXCL, 0600)`), `fsync`ed, renamed over the old file, and the
/// directory is `fsync`ed. A write that fails part way leaves the previous file as it was; a killed
/// writer's temporary is removed by the next write.
///
/// Thread-safety: a value type without shared state; concurrent writers of one account each replace the
/// file whole, the last rename wins. Whoever reads an account, renews it and writes it back does so under
/// ``withLock(accountKey:timeout:_:)`` (a file lock next to the account file), so that two graph-ics
/// processes never both spend one refresh token or write back an older sign-in over a newer one.
public struct TokenStore: Sendable {
    /// The directory holding the account files.
    public let directory: URL
    /// Test hook: make writes fail after this many bytes, as a full disk would.
    var failWritesAfterBytes: Int?

    static let filePrefix = "account-"
    static let fileSuffix = ".json"

    public init(directory: URL) {
        self.directory = directory
    }

    /// The store in the configured directory.
    public init(configuration: AuthConfiguration) {
        self.init(directory: configuration.configDirectory)
    }

    /// The file that holds the account with this key.
    public func fileURL(forAccountKey key: String) -> URL {
        directory.appendingPathComponent(TokenStore.fileName(forAccountKey: key), isDirectory: false)
    }

    /// Writes (or replaces) the account's file atomically.
    public func save(_ account: AccountTokens) throws(AuthError) {
        try prepareDirectory(create: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data: Data
        do {
            data = try encoder.encode(account)
        } catch {
            throw AuthError(.storeFailure, "graph-ics could not encode the account \(account.accountKey).")
        }
        try writeAtomically(data, to: fileURL(forAccountKey: account.accountKey))
    }

    /// Makes sure a sign-in can be saved, before anyone signs in: creates the directory (privately) when it
    /// is missing and checks that graph-ics may write in it.
    public func checkWritable() throws(AuthError) {
        _ = try prepareDirectory(create: true)
        guard access(directory.path, W_OK | X_OK) == 0 else {
            throw AuthError.posix(
                .storeFailure, "graph-ics cannot write in its configuration folder", path: directory.path, errno: errno)
        }
    }

    /// The account with this key, or `nil` if none is stored.
    public func load(accountKey key: String) throws(AuthError) -> AccountTokens? {
        guard try prepareDirectory(create: false) else { return nil }
        return try read(fileURL(forAccountKey: key))
    }

    /// Every stored account, ordered by account key.
    public func list() throws(AuthError) -> [AccountTokens] {
        guard try prepareDirectory(create: false) else { return [] }
        var accounts: [AccountTokens] = []
        for name in try accountFileNames() {
            if let account = try read(directory.appendingPathComponent(name, isDirectory: false)) {
                accounts.append(account)
            }
        }
        return accounts.sorted { $0.accountKey < $1.accountKey }
    }

    /// Deletes the account's file (`graph-ics logout`). Returns whether there was one.
    @discardableResult
    public func delete(accountKey key: String) throws(AuthError) -> Bool {
        guard try prepareDirectory(create: false) else { return false }
        return try unlinkFile(fileURL(forAccountKey: key).path)
    }

    /// Deletes every account file, readable or not. Returns how many there were.
    @discardableResult
    public func deleteAll() throws(AuthError) -> Int {
        guard try prepareDirectory(create: false) else { return 0 }
        var count = 0
        for name in try accountFileNames()
        where try unlinkFile(directory.appendingPathComponent(name, isDirectory: false).path) {
            count += 1
        }
        return count
    }

    // MARK: - File names

    /// `account-` + the key with every byte outside `A-Z a-z 0-9 . _ -` percent-encoded + `.json`.
    static func fileName(forAccountKey key: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                bytes.append(byte)
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return filePrefix + String(decoding: bytes, as: UTF8.self) + fileSuffix
    }

    private func accountFileNames() throws(AuthError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw AuthError(
                .storeFailure,
                "graph-ics could not list its token store \(directory.path); check that directory.",
                underlying: error
            )
        }
        return names.filter { $0.hasPrefix(TokenStore.filePrefix) && $0.hasSuffix(TokenStore.fileSuffix) }.sorted()
    }

    // MARK: - Directory

    /// Makes sure the directory exists (when `create`) and is private. Returns whether it exists.
    @discardableResult
    func prepareDirectory(create: Bool) throws(AuthError) -> Bool {
        let path = directory.path
        var info = stat()
        if stat(path, &info) != 0 {
            let number = errno
            guard number == ENOENT else {
                throw AuthError.posix(.storeFailure, "graph-ics cannot use its token store", path: path, errno: number)
            }
            guard create else { return false }
            try makeDirectories(path)
            return true
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw AuthError(.storeFailure, "The token store \(path) is not a directory; move that file away.")
        }
        guard info.st_uid == geteuid() else {
            throw AuthError(
                .insecureConfiguration,
                "The token store \(path) belongs to another user; set GRAPH_ICS_CONFIG_DIR to a directory of your own."
            )
        }
        // A shared directory (/tmp, a team folder) is never taken over: changing its mode would break it.
        guard info.st_mode & (S_ISVTX | S_IWOTH) == 0 else {
            throw AuthError(
                .insecureConfiguration,
                "The token store \(path) is a shared directory writable by others; set GRAPH_ICS_CONFIG_DIR "
                    + "to a directory of your own."
            )
        }
        if info.st_mode & 0o077 != 0, chmod(path, 0o700) != 0 {
            throw AuthError.posix(
                .insecureConfiguration,
                "graph-ics could not make its token store private (chmod 700)",
                path: path,
                errno: errno
            )
        }
        return true
    }

    /// `mkdir -p` with every directory it creates set to exactly `0700`.
    private func makeDirectories(_ path: String) throws(AuthError) {
        let parent = (path as NSString).deletingLastPathComponent
        var info = stat()
        if !parent.isEmpty, parent != path, stat(parent, &info) != 0 {
            guard errno == ENOENT else {
                throw AuthError.posix(.storeFailure, "graph-ics cannot create", path: parent, errno: errno)
            }
            try makeDirectories(parent)
        }
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw AuthError.posix(.storeFailure, "graph-ics cannot create its token store", path: path, errno: errno)
        }
        // mkdir's mode is filtered through the umask; set it exactly.
        if chmod(path, 0o700) != 0 {
            throw AuthError.posix(.storeFailure, "graph-ics cannot set permissions on", path: path, errno: errno)
        }
    }

    // MARK: - Files

    private func read(_ url: URL) throws(AuthError) -> AccountTokens? {
        let path = url.path
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            let number = errno
            if number == ENOENT { return nil }
            throw AuthError.posix(.storeFailure, "graph-ics cannot read", path: path, errno: number)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw AuthError.posix(.storeFailure, "graph-ics cannot read", path: path, errno: errno)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw AuthError(.storeFailure, "The token file \(path) is not a regular file; remove it.")
        }
        guard info.st_uid == geteuid() else {
            throw AuthError(
                .insecureConfiguration,
                "The token file \(path) belongs to another user; remove it and run `graph-ics login`."
            )
        }
        if info.st_mode & 0o077 != 0, fchmod(fd, 0o600) != 0 {
            throw AuthError.posix(.insecureConfiguration, "graph-ics could not make private", path: path, errno: errno)
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw AuthError.posix(.storeFailure, "graph-ics cannot read", path: path, errno: errno)
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
            if data.count > 1 << 20 {
                throw AuthError(.storeFailure, "The token file \(path) is too large to be graph-ics'; remove it.")
            }
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(AccountTokens.self, from: data)
        } catch {
            throw AuthError(
                .storeFailure,
                "The token file \(path) is damaged; run `graph-ics logout` and `graph-ics login`."
            )
        }
    }

    private func writeAtomically(_ data: Data, to url: URL) throws(AuthError) {
        do throws(AtomicFileError) {
            let file = AtomicFile(url.path)
            // A killed writer's temporary holds tokens too.
            file.removeLeftovers()
            let replacement = try file.begin()
            let limit = failWritesAfterBytes ?? Int.max
            try replacement.write(data.prefix(limit))
            if limit < data.count { throw AtomicFileError(.write, path: url.path, errno: ENOSPC) }
            try replacement.commit()
        } catch {
            throw AuthError.posix(.storeFailure, error.what, path: error.path, errno: error.errno)
        }
    }

    private func unlinkFile(_ path: String) throws(AuthError) -> Bool {
        if unlink(path) == 0 {
            syncDirectory()
            return true
        }
        let number = errno
        if number == ENOENT { return false }
        throw AuthError.posix(.storeFailure, "graph-ics could not delete", path: path, errno: number)
    }

    /// Makes an unlink durable. Best effort: some file systems refuse `fsync` on directories.
    private func syncDirectory() {
        try? AtomicFile.syncFolder(directory.path)
    }
}
