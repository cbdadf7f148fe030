import Foundation

/// Reads the Graph JSON that graph-ics accepts: a calendarView or events response (`{"value": [...]}`), a
/// single event object, or a bare array of events.
///
/// One event that does not decode does not stop the others: it becomes an error ``Diagnostic`` naming the
/// JSON key path (`value[3].start.dateTime`) and the event's id, and decoding goes on.
public struct GraphEventDocument: Sendable {
    /// The events that decoded, in input order.
    public var events: [GraphEvent]
    /// One error per event that did not decode.
    public var diagnostics: [Diagnostic]
    /// How many event objects the input held, decodable or not.
    public var count: Int

    /// Decodes `data`; `file` names the input in diagnostics.
    ///
    /// - Throws: ``ICalBridgeError`` with code `.badInput` when the input as a whole is not JSON or not
    ///   one of the accepted shapes.
    public static func decode(_ data: Data, file: String) throws(ICalBridgeError) -> GraphEventDocument {
        var events: [GraphEvent] = []
        let (count, diagnostics) = try forEachEvent(in: data, file: file) { events.append($0) }
        return GraphEventDocument(events: events, diagnostics: diagnostics, count: count)
    }

    /// Reads `data` and hands each event to `body` as soon as it is read, so that a large response never
    /// exists as a whole array of models. Returns how many event objects there were and the diagnostics
    /// of those that did not decode.
    ///
    /// - Throws: ``ICalBridgeError`` with code `.badInput` when the input as a whole is not JSON or not
    ///   one of the accepted shapes; the caller must then discard the events it was already handed.
    public static func forEachEvent(
        in data: Data,
        file: String,
        _ body: (GraphEvent) -> Void
    ) throws(ICalBridgeError) -> (count: Int, diagnostics: [Diagnostic]) {
        try read(data, file: file, parsed: body, deferred: nil, finish: {})
    }

    /// Like ``forEachEvent(in:file:_:)``, but each element of an events array is only checked for syntax
    /// and handed to `deferred` as an ``UnparsedEvent``, to be parsed later (on another core) with
    /// ``parse(_:file:)``; a single event object still goes to `parsed`. `finish` runs before the input
    /// bytes go away: every ``UnparsedEvent`` must have been parsed by the time it returns.
    static func forEachUnparsedEvent(
        in data: Data,
        file: String,
        parsed: (GraphEvent) -> Void,
        deferred: (UnparsedEvent) -> Void,
        finish: () -> Void
    ) throws(ICalBridgeError) -> (count: Int, diagnostics: [Diagnostic]) {
        try withoutActuallyEscaping(deferred) { (deferred) throws(ICalBridgeError) in
            try read(data, file: file, parsed: parsed, deferred: deferred, finish: finish)
        }
    }

    private static func read(
        _ data: Data,
        file: String,
        parsed: (GraphEvent) -> Void,
        deferred: ((UnparsedEvent) -> Void)?,
        finish: () -> Void
    ) throws(ICalBridgeError) -> (count: Int, diagnostics: [Diagnostic]) {
        let content = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
        guard content.contains(where: { !Self.isJSONWhitespace($0) }) else {
            throw ICalBridgeError(.badInput, "the input is empty (expected Graph JSON)", location: file)
        }
        return try withoutActuallyEscaping(parsed) { (handle) throws(ICalBridgeError) in
            var failure: JSONReader.Failure?
            var lineAndColumn = (line: 0, column: 0)
            var state = Reading(file: file, handle: handle)
            func readAll(_ deferred: ((UnparsedEvent) -> Void)?) {
                state.deferred = deferred
                content.withUnsafeBytes { raw in
                    defer { finish() }
                    var reader = JSONReader(raw.bindMemory(to: UInt8.self))
                    do throws(JSONReader.Failure) {
                        try state.read(&reader)
                    } catch {
                        failure = error
                        if case .syntax(_, let offset) = error { lineAndColumn = reader.lineAndColumn(of: offset) }
                    }
                }
            }
            readAll(deferred)
            switch failure {
            case nil:
                return (state.count, state.diagnostics)
            case .syntax(let message, _):
                throw ICalBridgeError(
                    .badInput,
                    "not valid JSON (line \(lineAndColumn.line), column \(lineAndColumn.column): \(message))",
                    location: file
                )
            case .type(let path, let message):
                throw ICalBridgeError(.badInput, "\(path): \(message)", location: file)
            }
        }
    }

    static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

/// The state of one read: where the events go, what went wrong, how many there were.
struct Reading {
    static let notAnEvent = "this JSON object is neither a Graph event nor a response with a \"value\" array of events"

    let file: String
    let handle: (GraphEvent) -> Void
    /// When set, elements of an events array are handed over unparsed.
    var deferred: ((UnparsedEvent) -> Void)?
    var diagnostics: [Diagnostic] = []
    var count = 0

    /// Reads the top level: `{"value": [...]}`, one event object, or an array of events.
    mutating func read(_ reader: inout JSONReader) throws(JSONReader.Failure) {
        switch reader.peek() {
        case UInt8(ascii: "["):
            try readEvents(&reader)
        case UInt8(ascii: "{"):
            // A response is read in one pass; an object without a "value" key is read again as one event.
            let start = reader.index
            var isResponse = false
            try reader.object { (reader, key) throws(JSONReader.Failure) in
                guard key == "value" else { return try reader.skip() }
                isResponse = true
                guard reader.peek() == UInt8(ascii: "[") else { throw reader.typeError("an array of events") }
                try readEvents(&reader)
            }
            if !isResponse {
                reader.index = start
                try readEvent(&reader, single: true)
            }
        case nil:
            throw reader.syntax("unexpected end of input")
        default:
            try reader.skip()
            throw .type(path: "the top level", message: "expected Graph JSON: an object or an array of events")
        }
        guard reader.peek() == nil else { throw reader.syntax("unexpected text after the JSON value") }
    }

    private mutating func readEvents(_ reader: inout JSONReader) throws(JSONReader.Failure) {
        try reader.array { (reader, _) throws(JSONReader.Failure) in
            try readEvent(&reader, single: false)
        }
    }

    /// Reads one event; a wrong type inside it becomes a diagnostic and the reader skips the event. For
    /// the only object of the input (`single`), an object that is no event at all ends the read.
    private mutating func readEvent(_ reader: inout JSONReader, single: Bool) throws(JSONReader.Failure) {
        count += 1
        if !single, let deferred {
            let unparsed = UnparsedEvent(reader: reader)
            try reader.skip()
            deferred(unparsed)
            return
        }
        if single {
            var probe = reader
            if let event = try? GraphEvent.read(&probe), event.looksEmpty {
                throw .type(path: "the top level", message: Self.notAnEvent)
            }
        }
        switch try Self.parse(&reader, file: file) {
        case .event(let event): handle(event)
        case .failed(let diagnostic): diagnostics.append(diagnostic)
        }
    }

    /// Parses the event at the reader's position, leaving the reader after it. Wrong types become a
    /// diagnostic naming the key path and the event; only broken JSON syntax throws.
    static func parse(_ reader: inout JSONReader, file: String) throws(JSONReader.Failure) -> ParsedEvent {
        let start = reader.index
        let depth = reader.path.count
        do throws(JSONReader.Failure) {
            guard let event = try GraphEvent.read(&reader) else {
                return .failed(
                    Diagnostic(.error, "\(reader.pathString): expected an event object, found null", file: file))
            }
            return .event(event)
        } catch {
            guard case .type(let path, let message) = error else { throw error }
            reader.path.removeLast(reader.path.count - depth)
            reader.index = start
            let (id, subject) = identify(reader)
            try reader.skip()
            return .failed(Diagnostic(.error, "\(path): \(message)", file: file, eventID: id, subject: subject))
        }
    }

    /// The `id` (or `iCalUId`) and `subject` of the object at the reader's position, when they are strings.
    static func identify(_ reader: JSONReader) -> (id: String?, subject: String?) {
        var copy = reader
        var id: String?
        var uid: String?
        var subject: String?
        _ = try? copy.object { (reader, key) throws(JSONReader.Failure) in
            guard reader.peek() == UInt8(ascii: "\""), key == "id" || key == "iCalUId" || key == "subject" else {
                try reader.skip()
                return
            }
            let value = try reader.string()
            if key == "id" {
                id = value
            } else if key == "iCalUId" {
                uid = value
            } else {
                subject = value
            }
        }
        return (id ?? uid, subject)
    }
}

/// An event or the reason it could not be read.
enum ParsedEvent {
    case event(GraphEvent)
    case failed(Diagnostic)
}

/// An element of an events array whose syntax was checked but which is not parsed yet: a reader placed on
/// it (with its key path), pointing into input bytes that stay valid until the read's `finish` returns.
///
/// Sendable by hand: the reader holds a pointer into those bytes, which no one writes while they are read,
/// and each unparsed event is parsed by one thread.
struct UnparsedEvent: @unchecked Sendable {
    let reader: JSONReader
}

extension GraphEventDocument {
    /// Parses an ``UnparsedEvent`` (any thread).
    static func parse(_ unparsed: UnparsedEvent, file: String) -> ParsedEvent {
        var reader = unparsed.reader
        do throws(JSONReader.Failure) {
            return try Reading.parse(&reader, file: file)
        } catch {
            // Syntax was checked when the event was skipped; a number that does not parse remains.
            let message: String
            switch error {
            case .syntax(let text, _): message = "\(unparsed.reader.pathString): \(text)"
            case .type(let path, let text): message = "\(path): \(text)"
            }
            let (id, subject) = Reading.identify(unparsed.reader)
            return .failed(Diagnostic(.error, message, file: file, eventID: id, subject: subject))
        }
    }
}

extension GraphEvent {
    /// True when nothing that makes an event was decoded (a JSON object of some other kind).
    var looksEmpty: Bool {
        id == nil && iCalUId == nil && start == nil && end == nil && subject == nil
    }
}
