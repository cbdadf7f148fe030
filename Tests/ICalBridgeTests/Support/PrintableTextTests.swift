import Foundation
import Testing

@testable import ICalBridge

@Suite struct PrintableTextTests {
    @Test("line breaks (CR, LF, CRLF, NEL, U+2028/9) become the given text; other control characters U+FFFD")
    func printable() {
        #expect(PrintableText.printable("a\r\nb\nc\rd\u{85}e\u{2028}f\u{2029}g") == "a b c d e f g")
        #expect(PrintableText.printable("a\r\nb", lineBreaks: "\n") == "a\nb")
        #expect(PrintableText.printable("x\u{1B}[2Jy\u{7F}z\u{9B}w\tv") == "x\u{FFFD}[2Jy\u{FFFD}z\u{FFFD}w\tv")
        #expect(PrintableText.printable("Kino – 哆啦A梦 🎟") == "Kino – 哆啦A梦 🎟")
    }

    @Test("a quoted subject is one line; past 60 characters it is cut to 57 and an ellipsis")
    func quoted() {
        #expect(PrintableText.quoted("Team\r\nlunch") == "Team lunch")
        let long = String(repeating: "é", count: 100)
        #expect(PrintableText.quoted(long) == String(repeating: "é", count: 57) + "…")
        #expect(PrintableText.quoted(long).count == 58)
    }

    @Test("a diagnostic names file, line, event and subject on one printable line")
    func diagnosticLine() {
        let diagnostic = Diagnostic(
            .error, "bad\nthing", file: "week.ics", eventID: "uid-1", subject: "A\u{1B}]0;title\u{7}B", line: 12)
        #expect(diagnostic.description == "week.ics:12: event uid-1 (\"A\u{FFFD}]0;title\u{FFFD}B\"): bad thing")
    }
}
