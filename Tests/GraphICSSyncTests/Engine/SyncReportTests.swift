import Foundation
import GraphICSMirror
import Testing

@testable import GraphICSSync

@Suite struct SyncReportTests {
    let window = SyncWindow(start: 1_796_083_200, end: 1_796_083_200 + 31 * 86_400)

    @Test func eachOutcomeHasItsLine() {
        let items: [(SyncReport.Outcome, String)] = [
            (.pulled(.new), "pulled new  a.ics  Lunch"),
            (.pushed(.changed), "pushed changed  a.ics  Lunch"),
            (.held(attendees: 3), "held (would mail 3 attendees)  a.ics  Lunch"),
            (.held(attendees: 1), "held (would mail 1 attendee)  a.ics  Lunch"),
            (
                .failed(reason: "Graph refused it", requestID: "r-1"),
                "failed: Graph refused it [request-id r-1]  a.ics  Lunch"
            ),
            (.refused(reason: "a rule Graph cannot hold"), "refused: a rule Graph cannot hold  a.ics  Lunch"),
            (
                .conflict(.graph, kept: "/s/conflicts/a.20261201T100000.local.ics", reason: nil),
                "conflict  a.ics  Lunch (Outlook's version kept; yours is kept under /s/conflicts/a.20261201T100000.local.ics)"
            ),
        ]
        for (outcome, line) in items {
            #expect(
                SyncReport.Item(fileName: "a.ics", uid: "u", subject: "Lunch", outcome: outcome).line(dryRun: false)
                    == line)
        }
    }

    @Test func aDryRunSaysWouldAndTheUIDStandsInForAMissingSubject() {
        let item = SyncReport.Item(fileName: "a.ics", uid: "uid-a", subject: nil, outcome: .pushed(.deleted))
        #expect(item.line(dryRun: true) == "would push deleted  a.ics  uid-a")
    }

    @Test func textFromGraphCannotBreakTheLine() {
        let item = SyncReport.Item(fileName: "a.ics", subject: "Evil\n\u{1B}[2Jsubject", outcome: .pulled(.new))
        #expect(item.line(dryRun: false) == "pulled new  a.ics  Evil \u{FFFD}[2Jsubject")
    }

    @Test func theSummaryCountsAndNamesTheRound() {
        var report = SyncReport(isDryRun: false, round: .changes, window: window)
        #expect(report.summary == "sync: no changes")
        report.items = [
            .init(fileName: "a.ics", outcome: .pulled(.new)), .init(fileName: "b.ics", outcome: .pulled(.new)),
            .init(fileName: "c.ics", outcome: .pulled(.deleted)), .init(fileName: "d.ics", outcome: .pushed(.changed)),
            .init(fileName: "e.ics", outcome: .held(attendees: 2)),
            .init(fileName: "f.ics", outcome: .conflict(.skip, kept: nil, reason: nil)),
        ]
        report.round = .reanchored
        #expect(
            report.summary
                == "sync: pulled 3 (2 new, 1 deleted), pushed 1 (1 changed), 1 held, 1 conflict; "
                + "re-read the window (it moves with today and had moved past the one stored)")
        #expect(report.hasProblems, "an unsettled conflict")
    }

    @Test func heldAndSettledConflictsAreNoProblemButFailuresAre() {
        var report = SyncReport(isDryRun: false, round: .changes, window: window)
        report.items = [
            .init(fileName: "e.ics", outcome: .held(attendees: 2)),
            .init(fileName: "f.ics", outcome: .conflict(.local, kept: "/k", reason: nil)),
        ]
        #expect(!report.hasProblems && report.problems.isEmpty)
        report.items.append(.init(fileName: "g.ics", outcome: .failed(reason: "x", requestID: nil)))
        #expect(report.hasProblems && report.problems.map(\.fileName) == ["g.ics"])
    }

    @Test func aRefusalStopsTheRunWithItsMessage() {
        var report = SyncReport(isDryRun: false, round: nil, window: window)
        report.refusal = MassDeletionGuard.Refusal(side: .outlook, deletions: 8, items: 10)
        #expect(report.hasProblems)
        #expect(report.summary.hasPrefix("sync: stopped: this sync would delete 8 of the 10 items in Outlook"))
    }

    @Test func theJSONHoldsEveryItemAndTheCounts() throws {
        var report = SyncReport(isDryRun: true, round: .first, window: window)
        report.items = [
            .init(fileName: "a.ics", uid: "uid-a", subject: "Lunch", outcome: .pulled(.new)),
            .init(fileName: "b.ics", uid: "uid-b", outcome: .failed(reason: "no", requestID: "r-9")),
            .init(fileName: "c.ics", outcome: .held(attendees: 4)),
        ]
        let object = try #require(try JSONSerialization.jsonObject(with: report.jsonData()) as? [String: Any])
        #expect(object["dryRun"] as? Bool == true && object["round"] as? String == "first")
        let window = try #require(object["window"] as? [String: String])
        #expect(window["start"] == "2026-12-01T00:00:00Z" && window["end"] == "2027-01-01T00:00:00Z")
        let items = try #require(object["items"] as? [[String: Any]])
        #expect(items.map { $0["outcome"] as? String } == ["pulled", "failed", "held"])
        #expect(items[0]["change"] as? String == "new" && items[0]["subject"] as? String == "Lunch")
        #expect(items[1]["requestId"] as? String == "r-9" && items[1]["reason"] as? String == "no")
        #expect(items[2]["attendees"] as? Int == 4 && items[2]["uid"] is NSNull)
        #expect(object["counts"] as? [String: Int] == ["pulled new": 1, "failed": 1, "held": 1])
        #expect(object["refusal"] is NSNull)
        #expect((object["summary"] as? String)?.hasSuffix("dry run: nothing was changed") == true)
    }
}

@Suite struct PulledSubjectsTests {
    @Test func theReportsSummaryReadsFoldedLines() {
        let text =
            "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:uid-\r\n one\r\nSUMMARY:Stand\r\n up\\, daily\r\nBEGIN:VALARM\r\n"
            + "UID:alarm\r\nEND:VALARM\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:uid-one\r\nRECURRENCE-ID:20261207T090000Z\r\n"
            + "END:VEVENT\r\nEND:VCALENDAR\r\n"
        #expect(PulledSubjects.summary(in: Data(text.utf8)) == "Standup, daily")
    }

    @Test func theFirstSummaryIsReadUnfoldedAndUnescaped() {
        let text =
            "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nSUMMARY;LANGUAGE=en:Lunch\\, then a very long walk\r\n"
            + "  in the park\\; bring shoes\\nand water\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nSUMMARY:Other\r\n"
            + "END:VEVENT\r\nEND:VCALENDAR\r\n"
        #expect(
            PulledSubjects.summary(in: Data(text.utf8))
                == "Lunch, then a very long walk in the park; bring shoes\nand water")
        #expect(PulledSubjects.summary(in: Data("BEGIN:VEVENT\r\nUID:a\r\nEND:VEVENT\r\n".utf8)) == nil)
    }
}
