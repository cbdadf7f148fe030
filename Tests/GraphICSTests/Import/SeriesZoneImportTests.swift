import Foundation
import GraphStandIn
import ICalBridge
import Testing

@testable import GraphICS

/// Series in zones without a Windows name, imported into the stand-in (which refuses a `range.startDate`
/// that is not the start's date in `recurrenceTimeZone`, as Graph does): every occurrence at its instant, and
/// the EXDATE after the change of daylight saving time found (issue 13, items 3 and 26).
@Suite struct SeriesZoneImportTests {
    static let file = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:-//test//EN
        BEGIN:VEVENT
        UID:cet-weekly@tests.example
        DTSTAMP:20261201T100000Z
        SUMMARY:CET weekly
        DTSTART;TZID=CET:20270303T090000
        DTEND;TZID=CET:20270303T100000
        RRULE:FREQ=WEEKLY;BYDAY=WE;COUNT=6
        EXDATE;TZID=CET:20270407T090000
        END:VEVENT
        END:VCALENDAR
        """

    func importing(_ text: String) throws -> (GraphStandIn, ImportReport) {
        let standIn = try GraphStandIn()
        standIn.addUser(displayName: "Alex Example", mail: "alex@contoso.example", mailboxTimeZone: "Europe/Berlin")
        let client = GraphClient(
            baseURL: try #require(URL(string: standIn.baseURL)), transport: CurlTransport(defaultTimeout: .seconds(20)),
            tokens: StaticTokenSource(token: standIn.issueAccessToken()),
            retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50)))
        let plan = try ICSToGraph.plan(
            Data(text.replacing("\n", with: "\r\n").utf8), options: ImportOptions(file: "series.ics"),
            settings: ImportSettings())
        let items = plan.events.map { ImportItem(file: "series.ics", event: $0) }
        return (standIn, EventImporter(client: client).run(items))
    }

    @Test("a weekly CET series crosses the spring change at 09:00 local and loses the EXDATE after it")
    func cetSeriesAcrossSpringChange() throws {
        let (standIn, report) = try importing(Self.file)
        defer { standIn.stop() }
        let result = try #require(report.results.first)
        #expect(result.action == .created, "\(result)")
        let seriesID = try #require(result.eventID)
        let starts = standIn.events().filter { ($0["seriesMasterId"] as? String) == seriesID }.map {
            String(((($0["start"] as? [String: Any])?["dateTime"] as? String) ?? "").prefix(19))
        }
        // 09:00 CET is 08:00 UTC until 28 March 2027, 07:00 UTC after; 7 April is deleted.
        #expect(
            starts == [
                "2027-03-03T08:00:00", "2027-03-10T08:00:00", "2027-03-17T08:00:00", "2027-03-24T08:00:00",
                "2027-03-31T07:00:00",
            ])
    }
}
