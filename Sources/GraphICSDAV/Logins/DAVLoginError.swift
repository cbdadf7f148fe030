import Foundation
import GraphICS
import GraphICSServe

#if canImport(Glibc)
    import Glibc
#endif

/// Why `dav.json` could not be read or written: a code and one sentence naming the file.
public struct DAVLoginError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable {
        /// The file is not JSON, or not logins graph-ics can use (a newer format included).
        case damaged
        /// The file or its folder could not be read, written or locked.
        case io
        /// The folder or the file belongs to another user or is shared, so it cannot be kept private.
        case insecure
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
    static func posix(_ code: Code, _ what: String, path: String, errno number: Int32) -> DAVLoginError {
        DAVLoginError(code, "\(what) \(path): \(String(cString: strerror(number)))")
    }
}

extension DAVLoginError {
    /// The same failure of the configuration folder's shared file code, for `dav.json`.
    init(_ error: FeedStoreError) {
        let code: Code =
            switch error.code {
            case .damaged, .invalid: .damaged
            case .io: .io
            case .insecure: .insecure
            }
        self.init(code, error.message)
    }
}
