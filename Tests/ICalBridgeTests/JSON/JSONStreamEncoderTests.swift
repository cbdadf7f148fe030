import Foundation
import Testing

@testable import ICalBridge

/// graph-ics's own JSON writer, which import uses instead of Foundation's JSONEncoder for speed.
@Suite struct JSONStreamEncoderTests {
    @Test("every fixture's events written by the stream encoder decode back to the same events")
    func fixturesRoundTrip() throws {
        #expect(Fixtures.graphNames.count > 10)
        for name in Fixtures.graphNames {
            let document = try GraphEventDocument.decode(Fixtures.data("graph/\(name).json"), file: name)
            for event in document.events {
                let compact = try JSONStreamEncoder().encode(event)
                let pretty = try JSONStreamEncoder(pretty: true).encode(event)
                #expect(try JSONDecoder().decode(GraphEvent.self, from: compact) == event, "\(name)")
                #expect(try JSONDecoder().decode(GraphEvent.self, from: pretty) == event, "\(name)")
            }
        }
    }

    @Test("the hand-written reader reads every fixture exactly as Foundation's JSONDecoder does")
    func readerAgreesWithJSONDecoder() throws {
        struct Collection: Decodable { var value: [GraphEvent] }
        for name in Fixtures.graphNames {
            let data = try Fixtures.data("graph/\(name).json")
            let read = try GraphEventDocument.decode(data, file: name).events
            let decoded: [GraphEvent]
            if let collection = try? JSONDecoder().decode(Collection.self, from: data) {
                decoded = collection.value
            } else if let array = try? JSONDecoder().decode([GraphEvent].self, from: data) {
                decoded = array
            } else {
                decoded = [try JSONDecoder().decode(GraphEvent.self, from: data)]
            }
            #expect(!read.isEmpty, "\(name)")
            #expect(read == decoded, "\(name)")
        }
    }

    @Test("strings with quotes, backslashes, control characters and non-ASCII text survive; slashes stay plain")
    func stringEscaping() throws {
        let text = "a\"b\\c/d\n\r\t\u{8}\u{C}\u{1}\u{1F} é 🎟"
        var event = GraphEvent()
        event.subject = text
        let data = try JSONStreamEncoder().encode(event)
        #expect(String(decoding: data, as: UTF8.self) == #"{"subject":"a\"b\\c/d\n\r\t\b\f\u0001\u001f é 🎟"}"#)
        #expect(try JSONDecoder().decode(GraphEvent.self, from: data).subject == text)
    }

    @Test("numbers: integers stay integers, fractions keep their digits, NaN is refused")
    func numbers() throws {
        var location = GraphLocation()
        location.coordinates = GraphOutlookGeoCoordinates(latitude: 52.370216, longitude: 4.0)
        let data = try JSONStreamEncoder().encode(location)
        #expect(String(decoding: data, as: UTF8.self) == #"{"coordinates":{"latitude":52.370216,"longitude":4}}"#)
        location.coordinates?.altitude = .nan
        #expect(throws: JSONStreamEncoder.InvalidValue.self) { try JSONStreamEncoder().encode(location) }
    }

    @Test("the import plan's JSON is valid, pretty and carries every annotation")
    func planJSON() throws {
        let text =
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nMETHOD:REQUEST\r\n"
            + (0..<600).map {
                "BEGIN:VEVENT\r\nUID:u\($0)\r\nSEQUENCE:2\r\nDTSTART:20261201T100000Z\r\nSUMMARY:S\($0)\r\nEND:VEVENT\r\n"
            }.joined()
            + "END:VCALENDAR\r\n"
        let plan = try ICSToGraph.plan(Data(text.utf8), options: ImportOptions(file: "p.ics"))
        let data = try plan.jsonData()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let values = try #require(object["value"] as? [[String: Any]])
        #expect(values.count == 600)
        #expect(values.map { $0["subject"] as? String } == (0..<600).map { "S\($0)" })
        #expect(
            values.allSatisfy {
                $0["@graph-ics.method"] as? String == "REQUEST" && $0["@graph-ics.sequence"] as? Int == 2
            })
        #expect(String(decoding: data.prefix(20), as: UTF8.self).hasPrefix("{\n  \"value\": [\n    {"))
        #expect(try ImportPlan().jsonData() == Data("{\n  \"value\": []\n}".utf8))
    }
}
