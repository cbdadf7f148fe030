import Foundation
import Testing

@testable import ICalBridge

@Suite struct ICalTextTests {
    @Test("re-folding cuts at 75 octets on character boundaries and unfolds to the same text")
    func refold() {
        let text = "SUMMARY:" + String(repeating: "Ä😀中", count: 40) + "\r\n"
        let bytes = Array(text.utf8)
        let folded = bytes.withUnsafeBufferPointer { ICalText.refold($0) }
        let lines = String(decoding: folded, as: UTF8.self).split(separator: "\r\n")
        #expect(lines.count > 3)
        for line in lines { #expect(line.utf8.count <= 75) }
        #expect(String(decoding: folded, as: UTF8.self).replacing("\r\n ", with: "") == text)
    }

    @Test("libical's fold between CR and LF is repaired")
    func repairsMisplacedFold() {
        let broken = Array("SUMMARY:abc\r\r\n \nDESCRIPTION:x\r\n".utf8)
        let folded = broken.withUnsafeBufferPointer { ICalText.refold($0) }
        #expect(String(decoding: folded, as: UTF8.self) == "SUMMARY:abc\r\nDESCRIPTION:x\r\n")
    }

    @Test("HTML becomes readable text")
    func htmlToText() {
        let html =
            "<html><head><title>x</title><style>p { color: red }</style></head><body><p>Hello&nbsp;&amp; <b>welcome</b></p>"
            + "<p>Line one<br>Line two</p><ul><li>First</li><li>Caf&#233;</li></ul><a href=\"https://example.com/a\">link</a></body></html>"
        #expect(
            HTMLText.plainText(fromHTML: html)
                == "Hello & welcome\nLine one\nLine two\n- First\n- Café\nlink <https://example.com/a>")
    }
}
