/// The exit statuses of graph-ics (sysexits.h), as the README's "Exit status" table lists them.
public enum ExitStatus: Int32, Sendable {
    case ok = 0
    /// Some events failed, the others went through.
    case partlyFailed = 1
    case usage = 64
    case badInput = 65
    case inputMissing = 66
    case unavailable = 69
    case cannotCreateOutput = 73
    case ioError = 74
    case temporaryFailure = 75
    case notSignedIn = 77
}

/// A mistake in the command line: printed with the usage line, exit 64.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A failure that ends a command with a message and a status.
public struct CommandFailure: Error, CustomStringConvertible {
    public var status: ExitStatus
    public var message: String
    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }
    public var description: String { message }
}
