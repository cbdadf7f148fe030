import GraphICS
import GraphICSMirror
import GraphICSServe
import GraphICSSync
import ICalBridge

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

extension ExitStatus {
    /// The status a command ends with when it throws `error`: the one mapping from the package's errors to the
    /// README's "Exit status" table. What no domain claims is an I/O error (74).
    public init(for error: any Error) {
        switch error {
        case is UsageError: self = .usage
        case let failure as CommandFailure: self = failure.status
        case let error as ICalBridgeError:
            switch error.code {
            case .badInput, .unknownTimeZone: self = .badInput
            case .cannotCreateOutput: self = .cannotCreateOutput
            case .io, .libical: self = .ioError
            }
        case let error as SyncStoreError:
            switch error.code {
            case .locked: self = .temporaryFailure
            case .badLocation: self = .cannotCreateOutput
            case .io, .schema, .invalidValue: self = .ioError
            }
        case is StateDirectoryError: self = .cannotCreateOutput
        case let error as MirrorError: self = error.code == .locked ? .temporaryFailure : .ioError
        case let error as AuthError:
            switch error.code {
            case .transport, .server, .malformedResponse: self = .unavailable
            case .storeFailure: self = .ioError
            case .insecureConfiguration, .invalidConfiguration: self = .usage
            case .notSignedIn, .tokenRejected, .insufficientScope, .invalidGrant, .declined, .deviceCodeExpired,
                .badVerificationCode:
                self = .notSignedIn
            }
        case let error as GraphError:
            switch error.kind {
            case .unauthorized: self = .notSignedIn
            case .unavailable, .other: self = .unavailable
            case .temporary: self = .temporaryFailure
            case .notFound: self = .inputMissing
            case .badRequest: self = .badInput
            }
        case let error as CurlError:
            switch error.code {
            case .insecureURL, .invalidRequest: self = .usage
            case .timedOut: self = .temporaryFailure
            default: self = .unavailable
            }
        default: self = .ioError
        }
    }
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
