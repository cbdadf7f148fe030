import Foundation

/// A fresh directory under the system's temporary folder, removed with everything in it in `deinit`.
public final class TemporaryDirectory {
    public let path: String

    public init() throws {
        var template = Array((NSTemporaryDirectory() + "/graph-ics-tests-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
            return String(cString: base)
        }
        guard let made, let real = realpath(made, nil) else { throw CocoaError(.fileWriteUnknown) }
        defer { free(real) }
        path = String(cString: real)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `path/name`.
    public func file(_ name: String) -> String {
        path + "/" + name
    }

    /// Writes `text` to `name` directly (not through graph-ics).
    public func write(_ text: String, to name: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: file(name)))
    }

    /// The names in the directory, sorted.
    public func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }
}
