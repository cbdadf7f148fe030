import Foundation
import Synchronization
import Testing

@testable import ICalBridge

/// ``ICSToGraph/stream(_:options:settings:transform:consume:)`` hands a large calendar's events on in groups
/// as they are planned, and what it hands on is exactly what ``ICSToGraph/plan(_:options:settings:)`` plans.
struct StreamedImportTests {
    typealias Large = LargeImportTests

    /// An override of `uid` moving its occurrence of `day` (December 2026) by two hours.
    static func override(of uid: String, day: Int, summary: String = "Moved occurrence") -> String {
        let date = "202612" + String(format: "%02d", day)
        return "BEGIN:VEVENT\r\nUID:\(uid)\r\nRECURRENCE-ID;TZID=Custom Berlin:\(date)T100000\r\n"
            + "DTSTART;TZID=Custom Berlin:\(date)T120000\r\nDURATION:PT1H\r\nSUMMARY:\(summary)\r\nEND:VEVENT\r\n"
    }

    /// A weekly series of 10 from Tuesday 1 December 2026 (event 5's days: 1, 8, 15, …).
    static func series(_ uid: String, foldedUID: Bool = false) -> String {
        let uidLine = foldedUID ? "UID:\(uid.prefix(3))\r\n \(uid.dropFirst(3))\r\n" : "UID:\(uid)\r\n"
        return "BEGIN:VEVENT\r\n" + uidLine + "SUMMARY:Series \(uid)\r\n"
            + "DTSTART;TZID=Custom Berlin:20261201T100000\r\nDURATION:PT1H\r\nRRULE:FREQ=WEEKLY;COUNT=10\r\n"
            + "X-MICROSOFT-CDO-BUSYSTATUS:FREE\r\nDESCRIPTION:A series\r\nEND:VEVENT\r\n"
    }

    /// 1,200 events with overrides before their series, in the same chunk, far after it, of a series whose UID
    /// line is folded or escaped, and of no series in the file; an unterminated VEVENT and broken ones.
    static func largeCalendar() -> String {
        var events = (0..<1200).map(Large.event)
        events[3] = Self.override(of: "event-5", day: 20, summary: "Moved before its series")
        events[600] = Self.series("far-series")
        events[601] = Self.override(of: "far-series", day: 15)
        events[700] = Self.series("folded-series", foldedUID: true)
        events[701] = Self.series(#"escaped\,series"#)
        events[702] = Self.override(of: "lone-b", day: 3)
        events[900] = events[900].replacingOccurrences(of: "END:VEVENT\r\n", with: "")
        events[1100] = Self.override(of: "folded-series", day: 22)
        events[1101] = Self.override(of: #"escaped\,series"#, day: 29)
        return Large.header + events.joined() + Large.override + Self.override(of: "lone-a", day: 2)
            + Self.override(of: "far-series", day: 1) + "END:VCALENDAR\r\n"
    }

    static let options = ImportOptions(file: "large.ics")

    /// The stream's JSON (through ``ImportPlan/JSONWriter``), its plan and event count, and the size of every
    /// group it handed on.
    static func streamed(_ text: String) throws -> (json: Data, plan: ImportPlan, events: Int, groups: [Int]) {
        var buffer = ByteBuffer()
        var writer = ImportPlan.JSONWriter()
        var groups: [Int] = []
        let (plan, events) = try ICSToGraph.stream(
            ICSToGraph.read(Data(text.utf8), file: options.file), options: options,
            transform: { (ImportPlan.JSONWriter.encode($0), $0.count) },
            consume: { (encoded: (Result<[UInt8], ICalBridgeError>, Int)) throws(ICalBridgeError) in
                groups.append(encoded.1)
                try writer.write(encoded.0, into: &buffer)
            })
        try writer.finish(into: &buffer)
        return (Data(buffer.bytes), plan, events, groups)
    }

    @Test("a large calendar streamed gives byte for byte the JSON, counts and diagnostics of the whole plan")
    func streamedEqualsPlanned() throws {
        let text = Self.largeCalendar()
        let whole = try ICSToGraph.plan(Data(text.utf8), options: Self.options)
        let streamed = try Self.streamed(text)
        #expect(streamed.json == (try whole.jsonData()))
        #expect(streamed.events == whole.events.count)
        #expect(streamed.plan.sourceEvents == whole.sourceEvents)
        #expect(streamed.plan.zoneResolutions == whole.zoneResolutions)
        #expect(streamed.plan.events.isEmpty)
        let described = { (plan: ImportPlan) in plan.diagnostics.map { "\($0.line ?? 0) \($0)" }.sorted() }
        #expect(described(streamed.plan) == described(whole))

        // The overrides found their series wherever they were; the lone ones are events of their own, last.
        let series = { (uid: String) in whole.events.first { $0.sourceUID == uid }?.followUps.count }
        #expect(series("event-5") == 2)
        #expect(series("far-series") == 2)
        #expect(series("folded-series") == 1)
        #expect(series(#"escaped,series"#) == 1)
        #expect(whole.events.suffix(2).map(\.sourceUID) == ["lone-a", "lone-b"])
    }

    @Test("groups are handed on while the rest is still to be planned, none larger than a chunk")
    func groupsComeAsTheyArePlanned() throws {
        let text = Large.header + (0..<3000).map(Large.event).joined() + "END:VCALENDAR\r\n"
        let log = Mutex<[String]>([])
        var handedOn = 0
        _ = try ICSToGraph.stream(
            ICSToGraph.read(Data(text.utf8), file: Self.options.file), options: Self.options,
            transform: { events in
                log.withLock { $0.append("planned") }
                return events.count
            },
            consume: { (count: Int) throws(ICalBridgeError) in
                log.withLock { $0.append("handed on") }
                #expect(count <= ICSToGraph.streamChunk)
                handedOn += count
            })
        let order = log.withLock { $0 }
        let firstHandedOn = try #require(order.firstIndex(of: "handed on"))
        let lastPlanned = try #require(order.lastIndex(of: "planned"))
        #expect(firstHandedOn < lastPlanned)
        #expect(handedOn == 3000 - (0..<3000).filter { $0 % 97 == 96 }.count)
    }

    @Test("a small calendar and one without events stream as they plan")
    func smallCalendarsStreamAsTheyPlan() throws {
        let small = Large.header + (0..<20).map(Large.event).joined() + Large.override + "END:VCALENDAR\r\n"
        let streamed = try Self.streamed(small)
        #expect(streamed.json == (try ICSToGraph.plan(Data(small.utf8), options: Self.options).jsonData()))
        #expect(streamed.events == 20)

        let empty = try Self.streamed(Large.header + "END:VCALENDAR\r\n")
        #expect(String(decoding: empty.json, as: UTF8.self) == "{\n  \"value\": []\n}")
        #expect(empty.events == 0)
        #expect(empty.plan.diagnostics.contains { $0.message == "the file holds no events" })
    }
}
