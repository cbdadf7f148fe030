import Foundation
import GraphStandIn
import TestSupport
import Testing

/// `graph-ics import` of times in a fold or a gap against the stand-in, which refuses a local time there
/// (how Graph reads one is on no page): single events arrive at their exact instants, sent in UTC; a series
/// keeps its local pattern and its occurrence in the fold or the gap is moved to its exact instant (issue 28,
/// item 4). Expected instants come from the system's zone rules.
@Suite struct FoldGapImportCommandTests {
    static let berlin = "Europe/Berlin"

    private static func write(_ account: StandInAccount, _ name: String, events: [String]) throws -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//graph-ics tests//EN"]
        for event in events {
            lines += ["BEGIN:VEVENT"] + event.split(separator: "\n").map(String.init) + ["END:VEVENT"]
        }
        lines.append("END:VCALENDAR")
        let url = account.folder.appendingPathComponent(name)
        try Data((lines.joined(separator: "\r\n") + "\r\n").utf8).write(to: url)
        return url.path
    }

    /// `2026-10-25T00:30:00`, the start Graph stores (UTC, without fraction).
    private static func startUTC(_ event: [String: Any]) -> String {
        String(((event["start"] as? [String: Any])?["dateTime"] as? String ?? "").prefix(19))
    }

    private static func endUTC(_ event: [String: Any]) -> String {
        String(((event["end"] as? [String: Any])?["dateTime"] as? String ?? "").prefix(19))
    }

    private static func text(_ instant: Int64) -> String { SystemZoneRules.utcText(instant) }

    private static func instants(_ local: String, in zone: String) -> [Int64] {
        SystemZoneRules.instants(local, in: zone)
    }

    private static func exact(_ local: String, in zone: String) throws -> Int64 {
        try #require(SystemZoneRules.rfcInstant(local, in: zone))
    }

    @Test("single events in the fold and the gap, and a floating one with --tz, are created at their exact instants")
    func singleEvents() throws {
        try #require(Self.instants("2026-10-25T02:30", in: Self.berlin).count == 2)
        try #require(Self.instants("2026-03-29T02:30", in: Self.berlin).isEmpty)
        let (account, environment) = try StandInAccount.inBerlin()
        let file = try Self.write(
            account, "fold-gap.ics",
            events: [
                "UID:fold@tests.example\nSUMMARY:Fold\nDTSTART;TZID=Europe/Berlin:20261025T023000\n"
                    + "DTEND;TZID=Europe/Berlin:20261025T033000",
                "UID:gap@tests.example\nSUMMARY:Gap\nDTSTART;TZID=Europe/Berlin:20260329T023000\n"
                    + "DTEND;TZID=Europe/Berlin:20260329T040000",
            ])
        let result = try account.run(["import", file], environment: environment)
        #expect(result.status == 0, "stderr: \(result.err)")
        let events = account.standIn.events()
        let fold = try #require(events.first { $0["subject"] as? String == "Fold" })
        #expect(Self.startUTC(fold) == Self.text(try Self.exact("2026-10-25T02:30", in: Self.berlin)))
        #expect(Self.endUTC(fold) == Self.text(try Self.exact("2026-10-25T03:30", in: Self.berlin)))
        #expect(fold["originalStartTimeZone"] as? String == "UTC", "the start was sent in UTC")
        let gap = try #require(events.first { $0["subject"] as? String == "Gap" })
        #expect(Self.startUTC(gap) == Self.text(try Self.exact("2026-03-29T02:30", in: Self.berlin)))
        #expect(gap["originalStartTimeZone"] as? String == "UTC")

        let floating = try Self.write(
            account, "floating.ics",
            events: ["UID:floating@tests.example\nSUMMARY:Floating\nDTSTART:20261025T023000\nDTEND:20261025T033000"])
        let floated = try account.run(["import", floating, "--tz", Self.berlin], environment: environment)
        #expect(floated.status == 0, "stderr: \(floated.err)")
        let created = try #require(account.standIn.events().first { $0["subject"] as? String == "Floating" })
        #expect(Self.startUTC(created) == Self.text(try Self.exact("2026-10-25T02:30", in: Self.berlin)))
    }

    @Test("a daily 02:30 series keeps its Berlin pattern; its fold and gap occurrences are moved to exact instants")
    func series() throws {
        let (account, environment) = try StandInAccount.inBerlin()
        let file = try Self.write(
            account, "series.ics",
            events: [
                "UID:autumn@tests.example\nSUMMARY:Autumn\nDTSTART;TZID=Europe/Berlin:20261023T023000\n"
                    + "DTEND;TZID=Europe/Berlin:20261023T030000\nRRULE:FREQ=DAILY;COUNT=5",
                "UID:spring@tests.example\nSUMMARY:Spring\nDTSTART;TZID=Europe/Berlin:20260327T023000\n"
                    + "DTEND;TZID=Europe/Berlin:20260327T030000\nRRULE:FREQ=DAILY;COUNT=5",
            ])
        let result = try account.run(["import", file], environment: environment)
        #expect(result.status == 0, "stderr: \(result.err)")
        let events = account.standIn.events()
        for (subject, days) in [
            ("Autumn", ["2026-10-23", "2026-10-24", "2026-10-25", "2026-10-26", "2026-10-27"]),
            ("Spring", ["2026-03-27", "2026-03-28", "2026-03-29", "2026-03-30", "2026-03-31"]),
        ] {
            let master = try #require(
                events.first { $0["subject"] as? String == subject && $0["type"] as? String == "seriesMaster" })
            #expect(
                master["originalStartTimeZone"] as? String == "W. Europe Standard Time", "\(subject): local pattern")
            let occurrences = events.filter { $0["seriesMasterId"] as? String == master["id"] as? String }
            let expected = try days.map { Self.text(try Self.exact($0 + "T02:30", in: Self.berlin)) }
            #expect(occurrences.map(Self.startUTC).sorted() == expected, "\(subject)")
            let moved = occurrences.filter { $0["type"] as? String == "exception" }
            #expect(moved.map(Self.startUTC) == [expected[2]], "\(subject): one override, on the day of the change")
            #expect(moved.map(Self.endUTC) == [Self.text(try Self.exact(days[2] + "T02:30", in: Self.berlin) + 1800)])
        }
    }
}
