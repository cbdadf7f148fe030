/// Why a WebDAV or CalDAV request body was refused: the gateway answers each code with 400 (or 403/422 where the
/// protocol names a precondition) and the message as the human sentence.
public struct DAVXMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The body holds a `<!DOCTYPE` or `<!ENTITY` declaration (or an encoding that could hide one).
        case declaration
        /// Elements nest deeper than `DAVXML.maximumDepth`.
        case tooDeep
        /// The body is not well-formed XML.
        case malformed
        /// Well-formed XML, but not what the method expects (another root element, a bad date, a bad number).
        case unexpected
    }

    public var code: Code
    /// One human sentence naming what was refused.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public init(code: Code, message: String) {
        self.init(code, message)
    }

    public var description: String { message }
}
