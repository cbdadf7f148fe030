import Foundation
import GraphICS
import GraphStandIn
import Testing

/// Ranged reads (calendarView, instances) cut into windows Graph accepts, each event once however the
/// windows cut it.
@Suite struct WindowedReadsTests {
    let standIn: GraphStandIn
    let client: GraphClient

    init() throws {
        standIn = try GraphStandIn()
        standIn.addUser(displayName: "Ada Lovelace", mail: "ada@contoso.example", mailboxTimeZone: "UTC")
        client = GraphClient(
            baseURL: try #require(URL(string: standIn.baseURL)), transport: CurlTransport(defaultTimeout: .seconds(20)),
            tokens: StaticTokenSource(token: standIn.issueAccessToken()))
    }

    static func utc(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text) ?? Date(timeIntervalSince1970: 0)
    }

    /// The ids of the events in pages, in order, repeats kept.
    static func ids(in pages: [Data]) -> [String] {
        pages.flatMap { page -> [String] in
            let object = (try? JSONSerialization.jsonObject(with: page)) as? [String: Any]
            return (object?["value"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        }
    }

    /// The `[start, end)` of each ranged request the stand-in answered whose path ends with `suffix`.
    func windows(endingWith suffix: String) -> [(start: Date, end: Date)] {
        standIn.requests.filter { $0.path.lowercased().hasSuffix(suffix) }.compactMap { request in
            let query = Dictionary(request.query.map { ($0.key.lowercased(), $0.value) }) { first, _ in first }
            guard let start = query["startdatetime"], let end = query["enddatetime"] else { return nil }
            return (Self.utc(start), Self.utc(end))
        }
    }

    @Test func theInstancesOfSixYearsAreReadInWindowsGraphAcceptsEachOnce() throws {
        defer { standIn.stop() }
        try standIn.addEvent([
            "id": "monthly", "type": "seriesMaster", "subject": "Monthly",
            "start": ["dateTime": "2021-01-04T09:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2021-01-04T10:00:00", "timeZone": "UTC"],
        ])
        var seeded: [String] = []
        for month in 0..<72 {
            let year = 2021 + month / 12
            let day = String(format: "%04d-%02d-04", year, month % 12 + 1)
            seeded.append(
                try standIn.addEvent([
                    "type": "occurrence", "seriesMasterId": "monthly", "subject": "Monthly",
                    "start": ["dateTime": "\(day)T09:00:00", "timeZone": "UTC"],
                    "end": ["dateTime": "\(day)T10:00:00", "timeZone": "UTC"],
                ]))
        }
        let start = Self.utc("2021-01-01T00:00:00Z")
        let end = Self.utc("2027-01-01T00:00:00Z")
        // One occurrence runs across the first window's end (2021-01-01 + 1825 days = 2025-12-31).
        seeded.append(
            try standIn.addEvent([
                "type": "exception", "seriesMasterId": "monthly", "subject": "Moved",
                "start": ["dateTime": "2025-12-30T22:00:00", "timeZone": "UTC"],
                "end": ["dateTime": "2026-01-01T02:00:00", "timeZone": "UTC"],
            ]))

        var pages: [Data] = []
        try client.instances(seriesMasterID: "monthly", start: start, end: end) { pages.append($0) }

        #expect(Self.ids(in: pages).sorted() == seeded.sorted())
        let windows = windows(endingWith: "/instances")
        #expect(windows.count == 2)
        #expect(windows.allSatisfy { $0.end.timeIntervalSince($0.start) <= GraphClient.longestRange })
        #expect(windows.first?.start == start && windows.last?.end == end)
    }

    /// An all-day event's end is midnight in its own zone; windows end at an instant. Each case puts the
    /// first window's end between the event's wall-clock end read as UTC and its real end (or the other way
    /// round), the cases where comparing the two as if both were UTC keeps or drops the wrong copy.
    @Test(arguments: [
        ("Pacific Standard Time", "2026-01-01T05:00:00Z"),  // ends 08:00Z; the window ends 05:00Z
        ("Line Islands Standard Time", "2026-01-01T05:00:00Z"),  // UTC+14: ends the day before, 10:00Z
        ("Dateline Standard Time", "2025-12-31T15:00:00Z"),  // UTC−12: ends 12:00Z
        ("Tokyo Standard Time", "2025-12-31T15:00:00Z"),
    ])
    func aLongAllDayEventAcrossAWindowBoundaryComesOnce(zone: String, rangeStart: String) throws {
        defer { standIn.stop() }
        let start = Self.utc(rangeStart)
        let boundary = start.addingTimeInterval(GraphClient.calendarViewWindow)
        // From 20 January to 1 February (exclusive) in the event's zone, across the first window's end.
        let holiday = try standIn.addEvent([
            "subject": "Holiday", "isAllDay": true,
            "start": ["dateTime": "2026-01-20T00:00:00", "timeZone": zone],
            "end": ["dateTime": "2026-02-01T00:00:00", "timeZone": zone],
        ])
        let stored = try #require(standIn.events().first { $0["id"] as? String == holiday })
        #expect((stored["end"] as? [String: Any])?["dateTime"] as? String == "2026-02-01T00:00:00.0000000")

        var pages: [Data] = []
        try client.calendarView(start: start, end: start.addingTimeInterval(60 * 86_400)) { pages.append($0) }

        #expect(Self.ids(in: pages) == [holiday])
        #expect(windows(endingWith: "/calendarview").first?.end == boundary)
    }

    @Test func aLongTimedEventAcrossManyWindowsComesOnce() throws {
        defer { standIn.stop() }
        let trip = try standIn.addEvent([
            "subject": "Expedition",
            "start": ["dateTime": "2026-01-10T08:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-06-10T08:00:00", "timeZone": "UTC"],
        ])
        var pages: [Data] = []
        try client.calendarView(
            start: Self.utc("2026-01-01T00:00:00Z"), end: Self.utc("2026-12-01T00:00:00Z")
        ) { pages.append($0) }
        #expect(Self.ids(in: pages) == [trip])
        #expect(windows(endingWith: "/calendarview").count == 11)
    }
}
