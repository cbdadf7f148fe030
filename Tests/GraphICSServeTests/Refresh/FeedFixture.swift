import Foundation
import GraphICS
import GraphStandIn
import ICalBridge

@testable import GraphICSServe

/// The stand-in with one user (mailbox in UTC), a client for it, a fresh state folder, and "now" at noon
/// on 1 December 2026: a feed with `pastDays` 0 and `futureDays` 30 shows December 2026.
final class FeedFixture {
    let standIn: GraphStandIn
    let client: GraphClient
    let state: FeedTestDirectory
    /// 2026-12-01T12:00:00Z.
    let now = Date(timeIntervalSince1970: 1_796_083_200 + 12 * 3600)
    /// 2026-12-01T00:00:00Z and 2027-01-01T00:00:00Z: the window at `now`.
    let windowStart = Date(timeIntervalSince1970: 1_796_083_200)
    let windowEnd = Date(timeIntervalSince1970: 1_796_083_200 + 31 * 86_400)

    init() throws {
        standIn = try GraphStandIn()
        standIn.addUser(displayName: "Ada Lovelace", mail: "ada@contoso.example", mailboxTimeZone: "UTC")
        guard let base = URL(string: standIn.baseURL) else { throw CocoaError(.fileReadInvalidFileName) }
        client = GraphClient(
            baseURL: base, transport: CurlTransport(defaultTimeout: .seconds(20)),
            tokens: StaticTokenSource(token: standIn.issueAccessToken()),
            retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50)))
        state = try FeedTestDirectory()
    }

    deinit {
        standIn.stop()
    }

    /// A feed of December 2026 (`pastDays` 0, `futureDays` 30) of the default calendar, or of `calendar`.
    func target(
        selection: EventSelection = FeedDefinition.defaultSelection, calendar: String? = nil, name: String = "team"
    ) -> FeedTarget {
        FeedTarget(
            definition: FeedDefinition(
                name: name, calendar: calendar, selection: selection, pastDays: 0, futureDays: 30),
            calendarID: calendar, isPrimary: calendar == nil, zone: .utc, calendarName: "Calendar")
    }

    func source(_ target: FeedTarget? = nil, pageSize: Int = 1000) -> FeedSource {
        FeedSource(target: target ?? self.target(), client: client, stateDirectory: state.url, pageSize: pageSize)
    }

    /// A single event on `day` of December 2026, 10:00–11:00 UTC.
    @discardableResult
    func addSingle(
        _ subject: String, day: Int, id: String, calendar: String? = nil, extra: [String: Any] = [:]
    ) throws -> String {
        let date = String(format: "2026-12-%02d", day)
        var event: [String: Any] = [
            "id": id, "subject": subject, "iCalUId": "uid-\(id)",
            "start": ["dateTime": "\(date)T10:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "\(date)T11:00:00", "timeZone": "UTC"],
        ]
        event.merge(extra) { _, new in new }
        return try standIn.addEvent(event, calendar: calendar)
    }

    /// A weekly series "Standup" on the Mondays 7, 14, 21 and 28 December 2026, 09:00–09:30 UTC: master
    /// `standup`, occurrences `standup-7` … `standup-28`.
    func addSeries() throws {
        func when(_ day: Int, _ time: String) -> [String: Any] {
            ["dateTime": String(format: "2026-12-%02dT%@", day, time), "timeZone": "UTC"]
        }
        let recurrence: [String: Any] = [
            "pattern": ["type": "weekly", "interval": 1, "daysOfWeek": ["monday"], "firstDayOfWeek": "sunday"],
            "range": [
                "type": "numbered", "startDate": "2026-12-07", "numberOfOccurrences": 4, "recurrenceTimeZone": "UTC",
            ],
        ]
        try standIn.addEvent([
            "id": "standup", "type": "seriesMaster", "subject": "Standup", "iCalUId": "uid-standup",
            "start": when(7, "09:00:00"), "end": when(7, "09:30:00"), "recurrence": recurrence,
            "originalStartTimeZone": "UTC", "originalEndTimeZone": "UTC",
        ])
        for day in [7, 14, 21, 28] {
            try standIn.addEvent([
                "id": "standup-\(day)", "type": "occurrence", "seriesMasterId": "standup", "subject": "Standup",
                "iCalUId": "uid-standup", "originalStart": String(format: "2026-12-%02dT09:00:00Z", day),
                "start": when(day, "09:00:00"), "end": when(day, "09:30:00"),
            ])
        }
    }

    /// Requests the stand-in has served so far.
    var requestCount: Int { standIn.operations.count }

    /// The paths of the requests served after the first `count`.
    func paths(after count: Int) -> [String] {
        standIn.operations.dropFirst(count).map(\.path)
    }

    /// What `graph-ics export` writes for the feed's window, calendar and selection.
    func exported(_ target: FeedTarget) throws -> Data {
        let options = ExportOptions(
            fallbackZone: target.zone, file: "calendarView", calendarName: target.calendarName,
            selection: target.definition.selection)
        let request = CalendarExporter.Request(
            calendarID: target.calendarID, start: windowStart, end: windowEnd, options: options)
        var buffer = ByteBuffer()
        _ = try CalendarExporter(client: client).export(request, into: &buffer)
        return Data(buffer.bytes)
    }

    /// The body as text.
    static func text(_ feed: RenderedFeed?) -> String {
        feed.map { String(decoding: $0.body, as: UTF8.self) } ?? ""
    }
}
