import Foundation

extension ImportPlan {
    /// The plan as `{"value": [...]}`: each event's payload exactly as `import` will POST it, plus instance
    /// annotations for what `import` does besides (`@graph-ics.followUps`, `@graph-ics.method`,
    /// `@graph-ics.cancelled`, `@graph-ics.sequence`), which it strips before sending. Fields come in the
    /// order of the Graph models, so the output is stable.
    public func jsonData() throws(ICalBridgeError) -> Data {
        var buffer = ByteBuffer()
        try writeJSON(into: &buffer)
        return Data(buffer.bytes)
    }

    /// Writes ``jsonData()``'s bytes into `sink` without holding them twice: the events are written in
    /// slices on all cores, then the slices go to `sink` one after the other, in order.
    public func writeJSON<Sink: ByteSink>(into sink: inout Sink) throws(ICalBridgeError) {
        let events = events
        let ranges = Parallel.slices(count: events.count, minimum: 256)
        var slices = Parallel.mapEach(count: ranges.count) { JSONWriter.encode(events[ranges[$0]]) }
        var writer = JSONWriter()
        for index in slices.indices {
            try writer.write(slices[index], into: &sink)
            slices[index] = .success([])
        }
        try writer.finish(into: &sink)
    }

    /// Writes ``jsonData()``'s bytes as the events come, in groups (``ICSToGraph/stream(_:options:settings:transform:consume:)``):
    /// ``encode(_:)`` on any core, then ``write(_:into:)`` of each group in order, then ``finish(into:)``.
    /// Nothing is written before the first event, so that a caller who gets none may write nothing.
    public struct JSONWriter {
        /// Whether the opening `{"value": [` is written.
        public private(set) var started = false

        public init() {}

        /// The events' JSON, each after `,\n    ` (the first one's separator is dropped when written).
        public static func encode(_ events: some Collection<PlannedEvent>) -> Result<[UInt8], ICalBridgeError> {
            let encoder = JSONStreamEncoder(pretty: true, depth: 2)
            var bytes: [UInt8] = []
            do {
                for event in events {
                    bytes += Array(separator.utf8)
                    try encoder.write(into: &bytes) { sink in try AnnotatedEvent(event).write(to: sink) }
                }
            } catch {
                return .failure(ICalBridgeError(.badInput, "cannot write the Graph JSON: \(error)"))
            }
            return .success(bytes)
        }

        /// Writes one group ``encode(_:)`` made, after the opening when it is the first.
        public mutating func write<Sink: ByteSink>(
            _ encoded: Result<[UInt8], ICalBridgeError>, into sink: inout Sink
        ) throws(ICalBridgeError) {
            let bytes = try encoded.get()
            guard !bytes.isEmpty else { return }
            if started {
                try sink.write(bytes)
                return
            }
            started = true
            try sink.write(Array("{\n  \"value\": [\n    ".utf8))
            try sink.write(Array(bytes.dropFirst(Self.separator.utf8.count)))
        }

        /// Closes the array (`{"value": []}` when no event was written).
        public mutating func finish<Sink: ByteSink>(into sink: inout Sink) throws(ICalBridgeError) {
            guard started else { return try sink.write(Array("{\n  \"value\": []\n}".utf8)) }
            try sink.write(Array("\n  ]\n}".utf8))
        }

        private static let separator = ",\n    "
    }

    /// One planned event as written: its payload and the annotations. Written field by field (`write(to:)`);
    /// its `Encodable` conformance says the same through the generic path, and a test holds the two together.
    struct AnnotatedEvent: Encodable {
        let event: PlannedEvent

        init(_ event: PlannedEvent) {
            self.event = event
        }

        /// The payload's fields, then the annotations, as one object.
        func write(to sink: JSONStreamEncoder.Sink) throws {
            var fields = JSONFields(opening: sink)
            try event.payload.writeFields(&fields)
            if !event.followUps.isEmpty {
                try fields.value("@graph-ics.followUps", event.followUps.map(FollowUpJSON.init))
            }
            fields.string("@graph-ics.method", event.method)
            if event.isCancelled { fields.bool("@graph-ics.cancelled", true) }
            fields.int("@graph-ics.sequence", event.sequence)
            fields.close()
        }

        func encode(to encoder: any Encoder) throws {
            try event.payload.encode(to: encoder)
            var container = encoder.container(keyedBy: AnyKey.self)
            if !event.followUps.isEmpty {
                try container.encode(event.followUps.map(FollowUpJSON.init), forKey: AnyKey("@graph-ics.followUps"))
            }
            if let method = event.method { try container.encode(method, forKey: AnyKey("@graph-ics.method")) }
            if event.isCancelled { try container.encode(true, forKey: AnyKey("@graph-ics.cancelled")) }
            if let sequence = event.sequence { try container.encode(sequence, forKey: AnyKey("@graph-ics.sequence")) }
        }
    }

    private struct FollowUpJSON: Encodable {
        var action: String
        var originalStart: String
        var changes: GraphEvent?

        init(_ step: FollowUp) {
            switch step {
            case .cancelOccurrence(let start):
                action = "cancelOccurrence"
                originalStart = start
            case .patchOccurrence(let start, let changes):
                action = "patchOccurrence"
                originalStart = start
                self.changes = changes
            }
        }
    }
}

/// A coding key made from any string (OData annotations such as `@graph-ics.followUps`).
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) {
        stringValue = string
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }
}
