/// An error of the conversion layer, naming the item it is about.
///
/// Shaped like NIO's `FileSystemError`: a ``Code`` that callers switch on (the CLI turns it into an exit
/// status), a message a person can act on, and where known the file, the event and the line.
public struct ICalBridgeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Equatable, Sendable {
        /// The input is not JSON, not Graph's shape, not iCalendar, or a value in it is invalid.
        case badInput
        /// A time zone name could not be resolved to a zone with rules.
        case unknownTimeZone
        /// libical refused an operation (out of memory, invalid value).
        case libical
        /// Reading or writing a file failed.
        case io
        /// The output file could not be created.
        case cannotCreateOutput
    }

    public var code: Code
    public var message: String
    /// The item the error is about, for example `events.json: event "AAMk…" ("Weekly sync")`.
    public var location: String?

    public init(_ code: Code, _ message: String, location: String? = nil) {
        self.code = code
        self.message = message
        self.location = location
    }

    public var description: String {
        if let location { return "\(location): \(message)" }
        return message
    }
}
