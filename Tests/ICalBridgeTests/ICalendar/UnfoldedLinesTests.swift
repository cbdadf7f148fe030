import Foundation
import ICalBridge
import Testing

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

    @Test func stringsLeaveOutEmptyLines() {
        #expect(
            UnfoldedLines.strings(in: Data("A:b\r\n\r\nC:d long\r\n  and more\nE:é\n".utf8))
                == ["A:b", "C:d long and more", "E:é"])
    }

    @Test func aLineIsFoldedAt75OctetsNeverInsideAUTF8Sequence() {
        let line = "DESCRIPTION:" + String(repeating: "é", count: 100)
        let folded = UnfoldedLines.folded(line)
        let physical = folded.components(separatedBy: "\r\n").dropLast()
        #expect(physical.count == 3)
        #expect(physical.allSatisfy { $0.utf8.count <= 75 })
        #expect(physical.dropFirst().allSatisfy { $0.hasPrefix(" ") })
        #expect(UnfoldedLines.strings(in: Data(folded.utf8)) == [line])
        #expect(UnfoldedLines.folded("A:b") == "A:b\r\n")
    }
}
