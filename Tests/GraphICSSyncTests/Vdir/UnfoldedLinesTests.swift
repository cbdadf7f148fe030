import Foundation
import Testing

@testable import GraphICSSync

@Suite struct UnfoldedLinesTests {
    static func lines(_ text: String) -> [String] {
        var lines: [String] = []
        UnfoldedLines.forEach(in: Array(text.utf8)) { line in
            lines.append(String(decoding: line, as: UTF8.self))
            return true
        }
        return lines
    }

    @Test func foldedLinesAreJoinedAndBothLineEndsAreRead() {
        #expect(
            Self.lines("BEGIN:VEVENT\r\nUID:a-very-long\r\n -uid\r\n\tand-more\nSUMMARY:x\r\nEND:VEVENT\r\n")
                == ["BEGIN:VEVENT", "UID:a-very-long-uidand-more", "SUMMARY:x", "END:VEVENT"])
        #expect(Self.lines("") == [])
        #expect(Self.lines(" leading\r\nA:b") == [" leading", "A:b"], "a first line is never a continuation")
    }

    @Test func theReportsSummaryReadsFoldedLines() {
        let text =
            "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:uid-\r\n one\r\nSUMMARY:Stand\r\n up\\, daily\r\nBEGIN:VALARM\r\n"
            + "UID:alarm\r\nEND:VALARM\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:uid-one\r\nRECURRENCE-ID:20261207T090000Z\r\n"
            + "END:VEVENT\r\nEND:VCALENDAR\r\n"
        #expect(PulledSubjects.summary(in: Data(text.utf8)) == "Standup, daily")
    }
}
