import Foundation
import GraphStandIn
import Testing

/// `graph-ics import --on-duplicate update` sends only what changed (``EventChange``, issue 28 item 2): the
/// event Graph holds is the baseline, and a newer file that changes nothing Graph holds sends nothing.
@Suite struct ImportUpdateChangeCommandTests {
    static func calendar(summary: String, sequence: Int, description: String = "Agenda: budget") -> String {
        """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//graph-ics tests//EN\r
        BEGIN:VEVENT\r
        UID:review-28@tests.example\r
        DTSTAMP:20261120T100000Z\r
        SEQUENCE:\(sequence)\r
        SUMMARY:\(summary)\r
        DESCRIPTION:\(description)\r
        LOCATION:Room 1\r
        CATEGORIES:Blue\r
        DTSTART;TZID=Europe/Berlin:20261201T090000\r
        DTEND;TZID=Europe/Berlin:20261201T100000\r
        BEGIN:VALARM\r
        ACTION:DISPLAY\r
        TRIGGER:-PT15M\r
        END:VALARM\r
        END:VEVENT\r
        END:VCALENDAR\r

        """
    }

    /// The bodies of the PATCHes the stand-in received.
    static func patches(_ standIn: GraphStandIn) -> [[String: Any]] {
        standIn.operations.filter { $0.method == "PATCH" }.compactMap { $0.jsonBody as? [String: Any] }
    }

    @Test("a newer file changing only the SUMMARY sends only the subject (and the version property)")
    func onlySubjectSent() throws {
        let (account, environment) = try StandInAccount.inBerlin()
        let file = account.folder.appendingPathComponent("review.ics")
        try Data(Self.calendar(summary: "Review", sequence: 0).utf8).write(to: file)
        let created = try account.run(["import", file.path], environment: environment)
        #expect(created.status == 0, "stderr: \(created.err)")

        // The same event, SEQUENCE 1, a new SUMMARY and its DESCRIPTION's line endings changed.
        try Data(
            Self.calendar(summary: "Review (budget)", sequence: 1).replacingOccurrences(of: "\r\n", with: "\n").utf8
        ).write(to: file)
        let updated = try account.run(["import", "--on-duplicate", "update", file.path], environment: environment)
        #expect(updated.status == 0, "stderr: \(updated.err)")
        #expect(updated.errLines.contains { $0.hasSuffix(": updated") }, "stderr: \(updated.err)")
        let patches = Self.patches(account.standIn)
        #expect(patches.count == 1)
        #expect(Set(patches.first?.keys.map { $0 } ?? []) == ["subject", "singleValueExtendedProperties"])
        #expect(patches.first?["subject"] as? String == "Review (budget)")
        let event = try #require(account.standIn.events().first)
        #expect(event["subject"] as? String == "Review (budget)")

        // A newer file that changes nothing Graph holds: nothing sent, reported unchanged.
        try Data(Self.calendar(summary: "Review (budget)", sequence: 2).utf8).write(to: file)
        let same = try account.run(["import", "--on-duplicate", "update", file.path], environment: environment)
        #expect(same.status == 0, "stderr: \(same.err)")
        #expect(same.err.contains("unchanged"), "stderr: \(same.err)")
        #expect(Self.patches(account.standIn).count == 1)
    }
}

extension ImportUpdateChangeCommandTests {
    /// A daily Berlin standup, Monday to Friday, whose Wednesday has its own SUMMARY.
    static func series(sequence: Int, wednesday: String) -> String {
        """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//graph-ics tests//EN\r
        BEGIN:VEVENT\r
        UID:standup-change-28@tests.example\r
        DTSTAMP:20261120T100000Z\r
        SEQUENCE:\(sequence)\r
        SUMMARY:Standup\r
        DTSTART;TZID=Europe/Berlin:20261130T090000\r
        DTEND;TZID=Europe/Berlin:20261130T091500\r
        RRULE:FREQ=DAILY;COUNT=5\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:standup-change-28@tests.example\r
        DTSTAMP:20261120T100000Z\r
        SEQUENCE:\(sequence)\r
        RECURRENCE-ID;TZID=Europe/Berlin:20261202T090000\r
        SUMMARY:\(wednesday)\r
        DTSTART;TZID=Europe/Berlin:20261202T090000\r
        DTEND;TZID=Europe/Berlin:20261202T091500\r
        END:VEVENT\r
        END:VCALENDAR\r

        """
    }

    @Test("a newer series that changes only an override: the master is not patched, the override is applied again")
    func seriesOverrideOnly() throws {
        let (account, environment) = try StandInAccount.inBerlin()
        let file = account.folder.appendingPathComponent("standup.ics")
        try Data(Self.series(sequence: 0, wednesday: "Standup (demo)").utf8).write(to: file)
        #expect(try account.run(["import", file.path], environment: environment).status == 0)
        let master = try #require(account.standIn.events().first { $0["type"] as? String == "seriesMaster" })
        let masterID = try #require(master["id"] as? String)

        try Data(Self.series(sequence: 1, wednesday: "Standup (retro)").utf8).write(to: file)
        let updated = try account.run(["import", "--on-duplicate", "update", file.path], environment: environment)
        #expect(updated.status == 0, "stderr: \(updated.err)")
        #expect(updated.err.contains("occurrences applied again"), "stderr: \(updated.err)")
        let masterPatches = account.standIn.operations.filter { $0.method == "PATCH" && $0.path.hasSuffix(masterID) }
        #expect(masterPatches.isEmpty, "the master is unchanged")
        let wednesday = account.standIn.events().first {
            $0["seriesMasterId"] as? String == masterID
                && (($0["start"] as? [String: Any])?["dateTime"] as? String ?? "").hasPrefix("2026-12-02")
        }
        #expect(wednesday?["subject"] as? String == "Standup (retro)")
    }
}

extension ImportUpdateChangeCommandTests {
    /// The report's event of `result`'s `--json` output.
    static func reportedEvent(_ result: ProcessResult) throws -> [String: Any] {
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        return try #require((object["events"] as? [[String: Any]])?.first)
    }

    /// An update of an event Outlook made an online meeting since it was imported sends no body, whose blob it
    /// would drop (`OnlineMeetingBody`); a changed DESCRIPTION left out is reported, on the event's line and in
    /// the `--json` report's note, and an unchanged one is not.
    @Test("an update of an online meeting keeps Outlook's description and says so when the file changed it")
    func onlineMeetingKeepsItsDescription() throws {
        let (account, environment) = try StandInAccount.inBerlin()
        let file = account.folder.appendingPathComponent("review.ics")
        let agenda = "Agenda: budget\\nJoin: https://teams.example/l/meetup-join/review"
        try Data(Self.calendar(summary: "Review", sequence: 0, description: agenda).utf8).write(to: file)
        #expect(try account.run(["import", file.path], environment: environment).status == 0)
        let id = try #require(account.standIn.events().first?["id"] as? String)
        try account.standIn.changeEvent(
            id: id,
            [
                "isOnlineMeeting": true, "onlineMeetingProvider": "teamsForBusiness",
                "onlineMeeting": ["joinUrl": "https://teams.example/l/meetup-join/review"],
            ])
        let bodyBefore = try #require(account.standIn.event(id: id)?["body"] as? [String: Any])

        // A newer file with a new SUMMARY and the same DESCRIPTION: the subject sent, no note.
        try Data(Self.calendar(summary: "Review (budget)", sequence: 1, description: agenda).utf8).write(to: file)
        let renamed = try account.run(
            ["import", "--on-duplicate", "update", "--json", file.path], environment: environment)
        #expect(renamed.status == 0, "stderr: \(renamed.err)")
        #expect(renamed.errLines.contains { $0.hasSuffix(": updated") }, "stderr: \(renamed.err)")
        #expect(try Self.reportedEvent(renamed)["note"] is NSNull, "\(renamed.out)")

        // A newer file with a new SUMMARY and a new DESCRIPTION: the subject sent, Outlook's body kept, and
        // the line and the JSON say so.
        try Data(
            Self.calendar(summary: "Review (final)", sequence: 2, description: "Agenda: budget and hiring").utf8
        ).write(to: file)
        let changed = try account.run(
            ["import", "--on-duplicate", "update", "--json", file.path], environment: environment)
        #expect(changed.status == 0, "stderr: \(changed.err)")
        let note = "Outlook's description kept: a description sent to an online meeting would turn the meeting off"
        #expect(changed.errLines.contains { $0.hasSuffix(": updated (\(note))") }, "stderr: \(changed.err)")
        let reported = try Self.reportedEvent(changed)
        #expect(reported["action"] as? String == "updated")
        #expect(reported["note"] as? String == note)

        let patches = Self.patches(account.standIn)
        #expect(patches.count == 2)
        #expect(patches.allSatisfy { $0["body"] == nil && $0["subject"] != nil })
        let event = try #require(account.standIn.event(id: id))
        #expect(event["subject"] as? String == "Review (final)")
        #expect(event["isOnlineMeeting"] as? Bool == true)
        #expect((event["body"] as? [String: Any])?["content"] as? String == bodyBefore["content"] as? String)
        #expect(account.standIn.disabledOnlineMeetings.isEmpty)
    }
}
