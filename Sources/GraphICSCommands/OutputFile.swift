import Foundation
import GraphICS
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
    /// A file being replaced: its temporary, which owns ``descriptor``.
    private var replacement: AtomicFile.Replacement?
    /// Whether ``descriptor`` is graph-ics's own to close (not standard output, not a replacement's).
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
        case .replaced(let target):
            var file = AtomicFile(target, permissions: .likeReplaced)
            file.temporaryPrefix = "." + Self.name(of: target) + ".graph-ics-"
            let replacement: AtomicFile.Replacement
            do {
                replacement = try file.begin()
            } catch {
                throw CommandFailure(.cannotCreateOutput, "cannot create \(path): \(POSIXFile.describe(error.errno))")
            }
            descriptor = replacement.descriptor
            ownsDescriptor = false
            self.replacement = replacement
            Interruption.register(replacement.temporaryPath)
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

    /// Makes the output final: flushes, and for a replaced file syncs it and renames it into place
    /// (``AtomicFile``).
    func commit() throws(ICalBridgeError) {
        try flush()
        guard let path else { return }
        if let replacement {
            self.replacement = nil
            defer { Interruption.unregister(replacement.temporaryPath) }
            do {
                try replacement.commit()
            } catch {
                replacement.discard()
                let reason = POSIXFile.describe(error.errno)
                switch error.step {
                case .create, .replace: throw ICalBridgeError(.cannotCreateOutput, "cannot create \(path): \(reason)")
                default: throw ICalBridgeError(.io, "cannot write \(path): \(reason)")
                }
            }
            return
        }
        guard ownsDescriptor else { return }
        ownsDescriptor = false
        if close(descriptor) != 0 {
            throw ICalBridgeError(.io, "cannot write \(path): \(POSIXFile.describe(errno))")
        }
    }

    /// Removes the temporary file, leaving any existing output untouched.
    func discard() {
        if ownsDescriptor {
            close(descriptor)
            ownsDescriptor = false
        }
        guard let replacement else { return }
        replacement.discard()
        Interruption.unregister(replacement.temporaryPath)
        self.replacement = nil
    }
}

extension OutputFile {
    /// How a path given to `-o` is written.
    enum Destination: Equatable {
        /// An inherited descriptor, named by `/dev/stdout`, `/dev/fd/N` and the like.
        case descriptor(Int32)
        /// A device, FIFO or socket (symbolic links resolved): written straight through.
        case special(String)
        /// A regular file or nothing yet (symbolic links resolved to `target`): replaced by rename; an
        /// existing file's mode and owner are kept.
        case replaced(target: String)
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
        case .absent, .regular: return .replaced(target: resolved)
        case .special: return .special(resolved)
        case .directory:
            throw CommandFailure(.cannotCreateOutput, "\(path): is a directory; give a file name with -o")
        case nil:
            // Not searchable, not a directory on the way, …: the temporary file cannot be made either, and
            // its failure names the reason.
            return .replaced(target: resolved)
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

    static func directory(of path: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().path
    }

    static func name(of path: String) -> String {
        URL(fileURLWithPath: path).lastPathComponent
    }
}
