import Foundation
import GraphICSMirror
import Testing

@testable import GraphICSSync

/// The pull reads the mirror's events of their own that hold moved occurrences once per round, not once per
/// changed series, and only when a series asks (issue 28, item 3, a review finding).
@Suite struct MovedOccurrenceIndexTests {
    /// What the index reads, counted.
    final class Mirror {
        var reads: [SyncWindow] = []
        let events: [MirrorEvent]

        init(_ events: [MirrorEvent]) {
            self.events = events
        }

        func storedEvents(in window: SyncWindow) -> [MirrorEvent] {
            reads.append(window)
            return events
        }
    }

    static func event(_ id: String, _ fields: [String: Any]) throws -> MirrorEvent {
        var object = fields
        object["id"] = id
        return MirrorEvent(id: id, changeKey: "ck-\(id)", raw: try JSONSerialization.data(withJSONObject: object))
    }

    /// A single event holding the occurrence of `series` originally on `day` December 2026.
    static func moved(_ id: String, of series: String, day: Int) throws -> MirrorEvent {
        try event(
            id,
            [
                "type": "singleInstance",
                "transactionId": "graph-ics-moved|2026-12-\(day)T09:00:00Z|\(series)",
            ])
    }

    @Test func theMirrorIsReadOncePerWindowIndexedBySeriesAndOnlyWhenAsked() throws {
        let mirror = Mirror([
            try Self.moved("a-14", of: "a", day: 14), try Self.event("lunch", ["type": "singleInstance"]),
            try Self.event("a-21", ["type": "occurrence", "seriesMasterId": "a"]),
            try Self.moved("b-15", of: "b", day: 15), try Self.moved("a-16", of: "a", day: 16),
            try Self.event("ticket", ["type": "singleInstance", "transactionId": "graph-ics|import|ticket"]),
        ])
        let index = MovedOccurrenceIndex(load: mirror.storedEvents(in:))
        #expect(mirror.reads.isEmpty, "nothing read before a series asks")

        let window = SyncWindow(start: 1_796_083_200, end: 1_796_083_200 + 31 * 86_400)
        #expect(try index.events(ofSeries: "a", in: window).map(\.id) == ["a-14", "a-16"])
        #expect(try index.events(ofSeries: "b", in: window).map(\.id) == ["b-15"])
        #expect(try index.events(ofSeries: "c", in: window).isEmpty)
        #expect(try index.events(ofSeries: "a", in: window).map(\.id) == ["a-14", "a-16"])
        #expect(mirror.reads == [window], "three series and one again: one read")

        // A series outside the window is rendered over its own span: that span is read once more.
        let span = SyncWindow(start: window.start - 86_400 * 365, end: window.end)
        #expect(try index.events(ofSeries: "b", in: span).map(\.id) == ["b-15"])
        #expect(try index.events(ofSeries: "a", in: span).count == 2)
        #expect(mirror.reads == [window, span])
    }
}
