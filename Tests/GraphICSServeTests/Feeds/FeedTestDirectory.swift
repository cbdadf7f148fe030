import Foundation

/// A fresh folder under the system's temporary folder, removed with everything in it in `deinit`.
final class FeedTestDirectory {
    let url: URL

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/graph-ics-serve-tests-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
            return String(cString: base)
        }
        guard let made else { throw CocoaError(.fileWriteUnknown) }
        url = URL(fileURLWithPath: made, isDirectory: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// `<folder>/<name>`.
    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// The permission bits of `name` (a file or folder inside).
    func mode(_ name: String) -> mode_t? {
        var info = stat()
        guard stat(path(name), &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }
}
