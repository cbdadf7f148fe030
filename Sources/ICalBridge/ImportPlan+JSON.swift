import Foundation

extension ImportPlan {
    /// The plan as `{"value": [...]}`: each event's payload exactly as `import` will POST it, plus instance
    /// annotations for what `import` does besides (`@graph-ics.followUps`, `@graph-ics.method`,
    /// `@graph-ics.cancelled`, `@graph-ics.sequence`), which it strips before sending. Keys are sorted, so
    /// the output is stable.
    public func jsonData() throws(ICalBridgeError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        do {
            return try encoder.encode(Envelope(value: events.map(AnnotatedEvent.init)))
        } catch {
            throw ICalBridgeError(.badInput, "cannot write the Graph JSON: \(error)")
        }
    }

    private struct Envelope: Encodable {
        var value: [AnnotatedEvent]
    }

    private struct AnnotatedEvent: Encodable {
        let event: PlannedEvent

        init(_ event: PlannedEvent) {
            self.event = event
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
