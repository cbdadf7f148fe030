import Foundation
import ICalBridge

/// Where a command's data goes: standard output, a file that appears whole or not at all, or something
/// written straight through (a device, a FIFO, a socket, an inherited descriptor).
///
/// What `-o PATH` does depends on what is at PATH (docs/ics-output.md, "What -o does with each kind of path"):
/// - nothing yet, or a regular file: the data goes to a temporary file in the same directory (so the
///   rename cannot cross file systems), flushed with `fsync`, and renamed over the target only by
///   ``commit()``. Until then an existing file is untouched; on failure, or when graph-ics is interrupted
///   (``Interruption``), the temporary file goes. Only if the process is killed outright (SIGKILL) does it
///   stay, under a name that says what it was: `.NAME.graph-ics-XXXXXX`. An existing file keeps its mode,
///   and its owner and group where the user may set them (root); its other hard links keep the old content.
/// - a symbolic link: the same, for the file it points to (the link stays a link).
/// - `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N` (a process substitution): that descriptor.
/// - a character or block device, a FIFO, a socket: opened and written as it is, never replaced.
final class OutputFile: ByteSink {
    let path: String?
    private let descriptor: Int32
    /// A file being replaced: the temporary file and the path it is renamed to.
    private var replacement: (temporary: String, target: String)?
    /// Whether ``descriptor`` is graph-ics's own to close (not standard output).
    private var ownsDescriptor: Bool
    private var buffer: [UInt8] = []

    /// `nil` or `-` means standard output.
    init(path: String?) throws(CommandFailure) {
        buffer.reserveCapacity(1 << 16)
        guard let path, path != "-" else {
            self.path = nil
            descriptor = 1
            ownsDescriptor = false
            return
        }
        self.path = path
        ownsDescriptor = true
        switch try Self.destination(of: path) {
        case .descriptor(let number):
            descriptor = try Self.duplicate(number, path: path)
        case .special(let resolved):
            descriptor = try Self.openSpecial(resolved, path: path)
        case .replaced(let target, let existing):
            guard
                let file = POSIXFile.makeTemporary(
                    prefix: Self.directory(of: target) + "/." + Self.name(of: target)
                        + ".graph-ics-")
            else {
                throw CommandFailure(.cannotCreateOutput, "cannot create \(path): \(POSIXFile.describe(errno))")
            }
            descriptor = file.descriptor
            replacement = (file.path, target)
            Interruption.register(file.path)
            Self.giveAttributes(of: existing ? target : nil, to: file.descriptor)
        }
    }

    deinit {
        discard()
    }

    /// A name for messages.
    var displayName: String { path ?? "standard output" }

    func write(_ bytes: UnsafeRawBufferPointer) throws(ICalBridgeError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { try flush() }
    }

    func flush() throws(ICalBridgeError) {
        if let code = buffer.withUnsafeBytes({ POSIXFile.writeAll(descriptor, $0) }) {
            // The reader went away (`| head`, a FIFO's reader closing): graph-ics ends as other tools do.
            if code == EPIPE { Interruption.endForBrokenPipe() }
            throw ICalBridgeError(.io, "cannot write \(displayName): \(POSIXFile.describe(code))")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Makes the output final: flushes, and for a replaced file syncs it and renames it into place.
    func commit() throws(ICalBridgeError) {
        try flush()
        guard let path, ownsDescriptor else { return }
        if replacement != nil, fsync(descriptor) != 0 {
            throw ICalBridgeError(.io, "cannot write \(path): \(POSIXFile.describe(errno))")
        }
        ownsDescriptor = false
        if close(descriptor) != 0 {
            let reason = POSIXFile.describe(errno)
            discard()
            throw ICalBridgeError(.io, "cannot write \(path): \(reason)")
        }
        guard let (temporaryPath, target) = replacement else { return }
        replacement = nil
        defer { Interruption.unregister(temporaryPath) }
        if rename(temporaryPath, target) != 0 {
            let reason = POSIXFile.describe(errno)
            unlink(temporaryPath)
            throw ICalBridgeError(.cannotCreateOutput, "cannot create \(path): \(reason)")
        }
    }

    /// Removes the temporary file, leaving any existing output untouched.
    func discard() {
        if ownsDescriptor {
            close(descriptor)
            ownsDescriptor = false
        }
        guard let (temporaryPath, _) = replacement else { return }
        unlink(temporaryPath)
        Interruption.unregister(temporaryPath)
        replacement = nil
    }
}

extension OutputFile {
    /// How a path given to `-o` is written.
    enum Destination: Equatable {
        /// An inherited descriptor, named by `/dev/stdout`, `/dev/fd/N` and the like.
        case descriptor(Int32)
        /// A device, FIFO or socket (symbolic links resolved): written straight through.
        case special(String)
        /// A regular file or nothing yet (symbolic links resolved to `target`): replaced by rename.
        /// `existing` is true when there is a file whose mode and owner the new one keeps.
        case replaced(target: String, existing: Bool)
    }

    /// What `-o path` writes to. Symbolic links are followed one by one, so that a link to `/dev/stdout`
    /// still means the descriptor and a link to a file that does not exist yet creates that file.
    static func destination(of path: String) throws(CommandFailure) -> Destination {
        var current = path
        for _ in 0..<40 {
            if let number = descriptorNumber(named: current) { return .descriptor(number) }
            guard let link = POSIXFile.linkTarget(current) else { return try destination(resolved: current, path) }
            current = link.hasPrefix("/") ? link : directory(of: current) + "/" + link
        }
        throw CommandFailure(.cannotCreateOutput, "cannot create \(path): \(POSIXFile.describe(ELOOP))")
    }

    private static func destination(resolved: String, _ path: String) throws(CommandFailure) -> Destination {
        switch POSIXFile.kind(of: resolved) {
        case .absent: return .replaced(target: resolved, existing: false)
        case .regular: return .replaced(target: resolved, existing: true)
        case .special: return .special(resolved)
        case .directory:
            throw CommandFailure(.cannotCreateOutput, "\(path): is a directory; give a file name with -o")
        case nil:
            // Not searchable, not a directory on the way, …: the temporary file cannot be made either, and
            // its failure names the reason.
            return .replaced(target: resolved, existing: false)
        }
    }

    /// The descriptor `/dev/stdin`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or `/proc/self/fd/N` names.
    static func descriptorNumber(named path: String) -> Int32? {
        switch path {
        case "/dev/stdin": return 0
        case "/dev/stdout": return 1
        case "/dev/stderr": return 2
        default: break
        }
        for prefix in ["/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", "/proc/\(getpid())/fd/"]
        where path.hasPrefix(prefix) {
            return Int32(path.dropFirst(prefix.count))
        }
        return nil
    }

    private static func duplicate(_ number: Int32, path: String) throws(CommandFailure) -> Int32 {
        let copy = fcntl(number, F_DUPFD_CLOEXEC, 3)
        guard copy >= 0 else {
            throw CommandFailure(.cannotCreateOutput, "cannot write to \(path): \(POSIXFile.describe(errno))")
        }
        return copy
    }

    /// Opens a device or FIFO for writing (a FIFO waits for its reader), or connects to a socket.
    private static func openSpecial(_ resolved: String, path: String) throws(CommandFailure) -> Int32 {
        var descriptor = open(resolved, O_WRONLY | O_NOCTTY | O_CLOEXEC)
        while descriptor < 0, errno == EINTR { descriptor = open(resolved, O_WRONLY | O_NOCTTY | O_CLOEXEC) }
        // open(2) refuses sockets with ENXIO; a stream socket is connected to instead.
        if descriptor < 0, errno == ENXIO { descriptor = POSIXFile.connectStreamSocket(resolved) }
        guard descriptor >= 0 else {
            throw CommandFailure(.cannotCreateOutput, "cannot write to \(path): \(POSIXFile.describe(errno))")
        }
        return descriptor
    }

    /// Gives the new file the mode of the one it replaces (or the usual mode for a new file, as `umask`
    /// says), and its owner and group where the user may (root may; others keep their own).
    private static func giveAttributes(of existing: String?, to descriptor: Int32) {
        var status = stat()
        guard let existing, stat(existing, &status) == 0 else {
            // mkstemp creates 0600; a new output file gets the usual mode.
            let mask = umask(0)
            umask(mask)
            fchmod(descriptor, 0o666 & ~mask)
            return
        }
        // Owner first: a change of owner clears the set-user-ID bits that fchmod then restores.
        // Others than root may keep at least the group, when they belong to it.
        if fchown(descriptor, status.st_uid, status.st_gid) != 0 { _ = fchown(descriptor, uid_t.max, status.st_gid) }
        fchmod(descriptor, status.st_mode & 0o7777)
    }

    static func directory(of path: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().path
    }

    static func name(of path: String) -> String {
        URL(fileURLWithPath: path).lastPathComponent
    }
}
