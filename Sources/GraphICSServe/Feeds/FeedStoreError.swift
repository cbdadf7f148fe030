import Foundation
import GraphICS

/// Why `feeds.json` could not be read or written. The message names the file and, for a damaged file, the
/// line or key (`feeds[1].secret`) where it went wrong.
public struct FeedStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable {
        /// The file is not JSON, or not feed definitions graph-ics can use.
        case damaged
        /// The file or its folder could not be read, written or locked.
        case io
        /// The folder or the file belongs to another user or is shared, so it cannot be kept private.
        case insecure
        /// A change would have stored definitions that are not valid (two feeds of one name, a bad name).
        case invalid
    }

    public var code: Code
    /// One sentence naming the file.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// An error from a failed system call on `path`.
    static func posix(_ code: Code, _ what: String, path: String, errno number: Int32) -> FeedStoreError {
        FeedStoreError(code, "\(what) \(path): \(String(cString: strerror(number)))")
    }
}

extension FeedStoreError {
    /// A failed replacement of a file, naming it.
    init(_ error: AtomicFileError) {
        self = .posix(.io, error.what, path: error.path, errno: error.errno)
    }
}

extension AtomicFile {
    /// Replaces the private (`0600`) file at `path` by `data`, as ``write(_:)`` does, failing with a
    /// ``FeedStoreError``: `feeds.json` and the feeds' disk cache.
    static func replace(_ path: String, with data: Data) throws(FeedStoreError) {
        do {
            try AtomicFile(path).write(data)
        } catch {
            throw FeedStoreError(error)
        }
    }
}
