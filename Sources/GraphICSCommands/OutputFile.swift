import Foundation
import ICalBridge

/// Where a command's data goes: standard output, or a file that appears whole or not at all.
///
/// A file is written to a temporary file in the same directory (so the rename cannot cross file
/// systems), flushed with `fsync`, and renamed over the target only by ``commit()``. Until then an
/// existing file of that name is untouched; on failure, or when graph-ics is interrupted (``Interruption``),
/// the temporary file goes. Only if the process is killed outright (SIGKILL) does it stay, under a name
/// that says what it was: `.NAME.graph-ics-XXXXXX`.
final class OutputFile: ByteSink {
    let path: String?
    private let descriptor: Int32
    private var temporaryPath: String?
    private var buffer: [UInt8] = []

    /// `nil` or `-` means standard output.
    init(path: String?) throws(CommandFailure) {
        guard let path, path != "-" else {
            self.path = nil
            descriptor = 1
            return
        }
        self.path = path
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CommandFailure(.cannotCreateOutput, "\(path): is a directory; give a file name with -o")
        }
        guard let file = POSIXFile.makeTemporary(prefix: directory + "/." + url.lastPathComponent + ".graph-ics-")
        else {
            throw CommandFailure(.cannotCreateOutput, "cannot create \(path): \(POSIXFile.describe(errno))")
        }
        self.descriptor = file.descriptor
        temporaryPath = file.path
        Interruption.register(file.path)
        // mkstemp creates 0600; an output file gets the usual mode (an existing file keeps its own).
        var status = stat()
        if stat(path, &status) == 0 {
            fchmod(descriptor, status.st_mode & 0o7777)
        } else {
            let mask = umask(0)
            umask(mask)
            fchmod(descriptor, 0o666 & ~mask)
        }
        buffer.reserveCapacity(1 << 16)
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
            let reason = POSIXFile.describe(code)
            if code == EPIPE { throw ICalBridgeError(.io, "\(displayName): the reading end closed (\(reason))") }
            throw ICalBridgeError(.io, "cannot write \(displayName): \(reason)")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Makes the output final: flushes, and for a file syncs it and renames it into place.
    func commit() throws(ICalBridgeError) {
        try flush()
        guard let path, let temporaryPath else { return }
        if fsync(descriptor) != 0 {
            throw ICalBridgeError(.io, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        if close(descriptor) != 0 {
            throw ICalBridgeError(.io, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        if rename(temporaryPath, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            Interruption.unregister(temporaryPath)
            self.temporaryPath = nil
            throw ICalBridgeError(.cannotCreateOutput, "cannot create \(path): \(reason)")
        }
        Interruption.unregister(temporaryPath)
        self.temporaryPath = nil
    }

    /// Removes the temporary file, leaving any existing output untouched.
    func discard() {
        guard let temporaryPath else { return }
        close(descriptor)
        unlink(temporaryPath)
        Interruption.unregister(temporaryPath)
        self.temporaryPath = nil
    }
}
