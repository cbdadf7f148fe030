import Foundation
import Testing

@testable import ICalBridge

@Suite struct GraphPageEntriesTests {
    @Test func eachEntryKeepsItsOwnBytesAndTheFieldsAskedFor() throws {
        let first = #"{"id":"AAMk1","changeKey":"ck1","subject":"Lunch \"at\" noon","start":{"id":"inner"}}"#
        let removed = #"{"id":"AAMk2","@removed":{"reason":"deleted"}}"#
        let page = Data(
            ("\u{FEFF}{\"@odata.context\":\"x\",\"value\":[ " + first + " , 7, " + removed
                + "],\"@odata.deltaLink\":\"https://graph.example/d\"}").utf8)
        let entries = try #require(GraphPage.entries(in: page, fields: ["id", "changeKey", "start"]))
        #expect(entries.count == 2, "a number in value is not an entry")
        #expect(entries[0].raw == Data(first.utf8))
        #expect(entries[0].fields == ["id": "AAMk1", "changeKey": "ck1"], "start is an object, not a string")
        #expect(!entries[0].isRemoved)
        #expect(entries[1].raw == Data(removed.utf8) && entries[1].isRemoved && entries[1].fields == ["id": "AAMk2"])
    }

    @Test func aPageWithoutAValueArrayOrNotJSONIsNil() {
        #expect(GraphPage.entries(in: Data(#"{"value":{}}"#.utf8), fields: ["id"]) == nil)
        #expect(GraphPage.entries(in: Data(#"{"error":{"code":"x"}}"#.utf8), fields: ["id"]) == nil)
        #expect(GraphPage.entries(in: Data(#"{"value":[{"id":"a"}"#.utf8), fields: ["id"]) == nil)
        #expect(GraphPage.entries(in: Data(#"{"value":[]}"#.utf8), fields: ["id"]) == [])
    }
}
