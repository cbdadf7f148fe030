import Foundation
import Testing

@testable import ICalBridge

@Suite struct GraphDocumentTests {
    @Test("the three accepted shapes decode: value array, single event, bare array")
    func shapes() throws {
        let event = #"{"id":"A","subject":"S","start":{"dateTime":"2026-12-01T08:00:00.0000000","timeZone":"UTC"}}"#
        for json in [#"{"value":[\#(event)]}"#, event, "[\(event)]"] {
            let document = try GraphEventDocument.decode(Data(json.utf8), file: "x.json")
            #expect(document.events.map(\.id) == ["A"])
        }
        let empty = try GraphEventDocument.decode(Data(#"{"value":[]}"#.utf8), file: "x.json")
        #expect(empty.events.isEmpty && empty.diagnostics.isEmpty)
    }

    @Test("a bad event names its JSON key path and id; the others still decode")
    func perEventErrors() throws {
        let json = #"""
            {"value":[{"id":"good","start":{"dateTime":"2026-12-01T08:00:00","timeZone":"UTC"}},
                      {"id":"bad","subject":"Broken","isAllDay":"yes"}, null]}
            """#
        let document = try GraphEventDocument.decode(Data(json.utf8), file: "week.json")
        #expect(document.events.map(\.id) == ["good"])
        #expect(document.count == 3)
        let first = try #require(document.diagnostics.first)
        #expect(first.eventID == "bad")
        #expect(first.description.contains("week.json"))
        #expect(first.description.contains("value[1].isAllDay"))
        #expect(first.description.contains("Broken"))
    }

    @Test(
        "input that is not usable as a whole throws badInput naming the file",
        arguments: [
            "", "not json at all", #"{"value": 5}"#, #"{"foo": 1}"#, "42", String(repeating: "[", count: 200_000),
            #"{"value":[{"id":"x","extra":"# + String(repeating: "[", count: 100) + "]]}]}",
            #"{"value":[{"id":"x","subject":"unterminated}]}"#,
        ])
    func wholeFileErrors(json: String) {
        #expect {
            _ = try GraphEventDocument.decode(Data(json.utf8), file: "in.json")
        } throws: { error in
            guard let error = error as? ICalBridgeError else { return false }
            return error.code == .badInput && error.description.hasPrefix("in.json")
        }
    }
}
