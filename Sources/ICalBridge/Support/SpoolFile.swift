import Foundation

/// Where VEVENT text (or a dry run's report) waits until it is written: memory up to ``memoryLimit``, then an
/// unlinked temporary file, so that a small export makes no file I/O and a huge one stays within bounded memory.
public final class SpoolFile {
    /// Text kept in memory before the spool moves to disk.
    private let memoryLimit: Int
    private let directory: String
    private var descriptor: Int32 = -1
    private var size: Int64 = 0
    /// In memory: everything so far. On disk: what is not written yet.
    private var pending: [UInt8] = []

    public init(directory: String?, memoryLimit: Int = 32 << 20) throws(ICalBridgeError) {
        self.memoryLimit = memoryLimit
        // getenv, not ProcessInfo's environment (a dictionary of every variable, built again at each call):
        // a sync makes a spool for each of thousands of item files.
        let environment = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        self.directory = directory ?? environment ?? "/tmp"
        pending.reserveCapacity(64 << 10)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    private var onDisk: Bool { descriptor >= 0 }

    func reserveCapacity(_ bytes: Int) {
        if !onDisk { pending.reserveCapacity(min(bytes, memoryLimit + (1 << 20))) }
    }

    /// Appends `bytes`, returning the offset they start at.
    public func append(_ bytes: [UInt8]) throws(ICalBridgeError) -> Int64 {
        let offset = size
        pending.append(contentsOf: bytes)
        size += Int64(bytes.count)
        if onDisk ? pending.count >= 1 << 20 : pending.count > memoryLimit { try flush() }
        return offset
    }

    /// Writes what is pending to the file, creating (and at once unlinking) it first when needed.
    private func flush() throws(ICalBridgeError) {
        if !onDisk {
            guard let file = POSIXFile.makeTemporary(prefix: directory + "/graph-ics-spool.") else {
                throw ICalBridgeError(
                    .io,
                    "cannot create a temporary file in \(directory): \(POSIXFile.describe(errno))"
                )
            }
            unlink(file.path)
            descriptor = file.descriptor
        }
        if let code = pending.withUnsafeBytes({ POSIXFile.writeAll(descriptor, $0) }) {
            throw ICalBridgeError(.io, "cannot write the temporary spool file: \(POSIXFile.describe(code))")
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// Writes the `length` bytes at `offset` into `sink`.
    public func copy<Sink: ByteSink>(offset: Int64, length: Int, into sink: inout Sink, buffer: inout [UInt8])
        throws(ICalBridgeError)
    {
        guard onDisk else {
            var failure: ICalBridgeError?
            pending.withUnsafeBytes { raw in
                let slice = UnsafeRawBufferPointer(rebasing: raw[Int(offset)..<(Int(offset) + length)])
                do throws(ICalBridgeError) { try sink.write(slice) } catch { failure = error }
            }
            if let failure { throw failure }
            return
        }
        if !pending.isEmpty { try flush() }
        buffer.removeAll(keepingCapacity: true)
        buffer.append(contentsOf: repeatElement(0, count: length))
        if let code = buffer.withUnsafeMutableBytes({ POSIXFile.readAll(descriptor, into: $0, at: offset) }) {
            throw ICalBridgeError(.io, "cannot read the temporary spool file back: \(POSIXFile.describe(code))")
        }
        try sink.write(buffer)
    }
}
