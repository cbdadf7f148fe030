/// A problem found while converting, attached to the file and the event it concerns.
///
/// Conversions collect diagnostics instead of stopping at the first one, so that one bad event does not
/// cost the user the rest of the file (swift-format's `DiagnosticsEngine` works the same way).
public struct Diagnostic: Equatable, Sendable, CustomStringConvertible {
    public enum Severity: String, Sendable {
        case warning
        case error
    }

    public var severity: Severity
    public var message: String
    /// The input file as the user named it (`-` or `<stdin>` for standard input).
    public var file: String?
    /// The event's id or UID, when the problem belongs to one event.
    public var eventID: String?
    /// The event's subject or SUMMARY, to help a person find it.
    public var subject: String?
    /// The 1-based line in the input, where known.
    public var line: Int?

    public init(
        _ severity: Severity,
        _ message: String,
        file: String? = nil,
        eventID: String? = nil,
        subject: String? = nil,
        line: Int? = nil
    ) {
        self.severity = severity
        self.message = message
        self.file = file
        self.eventID = eventID
        self.subject = subject
        self.line = line
    }

    /// `FILE:LINE: event ID ("SUBJECT"): message`, leaving out what is unknown, on one line (line breaks in
    /// an id, a subject or a value quoted in the message become spaces).
    public var description: String {
        var parts: [String] = []
        if let file {
            parts.append(line.map { "\(file):\($0)" } ?? file)
        }
        if eventID != nil || subject != nil {
            var event = "event"
            if let eventID { event += " \(eventID)" }
            if let subject, !subject.isEmpty { event += " (\"\(PrintableText.quoted(subject))\")" }
            parts.append(event)
        }
        parts.append(message)
        return PrintableText.printable(parts.joined(separator: ": "))
    }
}
