import Foundation
import ICalBridge

/// Reads a whole input file or standard input.
enum InputFile {
    /// Maximum input size: far above any real calendar, low enough to refuse a wrong file fast.
    static let maximumBytes = 512 << 20

    static func read(_ path: String) throws(CommandFailure) -> Data {
        if path == "-" {
            // Read in pieces and stop past the limit: `… < /dev/zero | graph-ics convert -` must not fill memory.
            var data = Data()
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let count = chunk.withUnsafeMutableBytes { Foundation.read(0, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else {
                    throw CommandFailure(.ioError, "<stdin>: cannot be read (\(POSIXFile.describe(errno)))")
                }
                if count == 0 { return data }
                data.append(contentsOf: chunk[0..<count])
                guard data.count <= maximumBytes else {
                    throw CommandFailure(
                        .badInput, "<stdin>: larger than \(maximumBytes >> 20) MB; refusing to read it")
                }
            }
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandFailure(.inputMissing, "\(path): no such file")
        }
        guard !isDirectory.boolValue else {
            throw CommandFailure(.inputMissing, "\(path): is a directory, not a file")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CommandFailure(.inputMissing, "\(path): cannot be read (\(POSIXFile.describe(errno)))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw CommandFailure(.ioError, "\(path): cannot be read (\(POSIXFile.describe(errno)))")
        }
        let size = Int(status.st_size)
        guard size <= maximumBytes else {
            throw CommandFailure(.badInput, "\(path): larger than \(maximumBytes >> 20) MB; refusing to read it")
        }
        // One read of the known size (plain POSIX: no Foundation buffering, no mapping).
        var data = Data(count: size)
        let failure = data.withUnsafeMutableBytes { POSIXFile.readAll(descriptor, into: $0, at: 0) }
        if let failure {
            throw CommandFailure(.ioError, "\(path): cannot be read (\(POSIXFile.describe(failure)))")
        }
        return data
    }
}
