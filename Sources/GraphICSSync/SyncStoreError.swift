import Foundation
import GraphICS
import ICalBridge

/// A failure of what `sync` keeps on disk (the vdir folder, the state directory, the lock), naming the
/// file. SQLite's own failures are ``SQLiteError``s.
///
/// Shaped like the package's other errors: a ``Code`` that callers switch on (the command turns
/// ``Code/locked`` into exit status 75 and ``Code/io`` into 74), a message a person can act on, the path.
public struct SyncStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Equatable, Sendable {
        /// Another process holds the pairing's lock.
        case locked
        /// The folder or the state directory is missing, not a directory, or not usable.
        case badLocation
        /// Reading or writing a file failed (`ENOSPC` included).
        case io
        /// The state database is from a newer graph-ics, or not graph-ics's.
        case schema
        /// A value handed in cannot be stored (an item file name that is not one).
        case invalidValue
    }

    public var code: Code
    public var message: String
    /// The file or folder the error is about.
    public var path: String?
    /// The `errno` of the failed call, when one failed.
    public var errno: Int32?

    public init(_ code: Code, _ message: String, path: String? = nil, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.errno = errno
    }

    /// A failed POSIX call: `"<what>: <strerror>"`.
    static func posix(_ code: Code, _ what: String, path: String, errno number: Int32) -> SyncStoreError {
        SyncStoreError(code, "\(what): \(POSIXFile.describe(number))", path: path, errno: number)
    }

    /// A failed replacement of a file (``AtomicFile``), naming it.
    init(_ error: AtomicFileError) {
        self = .posix(.io, error.what, path: error.path, errno: error.errno)
    }

    public var description: String {
        if let path { return "\(path): \(message)" }
        return message
    }
}
