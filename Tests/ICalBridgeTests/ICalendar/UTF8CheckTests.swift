import Foundation
import Testing

@testable import ICalBridge

/// The UTF-8 check that decides between UTF-8 and Latin-1, against the standard library's validation.
@Suite struct UTF8CheckTests {
    func agrees(_ bytes: [UInt8]) -> Bool {
        let expected = String(validating: bytes, as: UTF8.self) != nil
        return bytes.withUnsafeBytes { UTF8Check.isValid($0) } == expected
    }

    @Test("every sequence of one to three bytes, and four-byte ones from every lead byte, as the stdlib judges")
    func shortSequences() {
        var disagreements: [[UInt8]] = []
        for first in 0...255 {
            if !agrees([UInt8(first)]) { disagreements.append([UInt8(first)]) }
            for second in 0...255 {
                let pair = [UInt8(first), UInt8(second)]
                if !agrees(pair) { disagreements.append(pair) }
                // After three- and four-byte leads, third bytes from each class: ASCII, the edges of the
                // continuation range, above it.
                for third: UInt8 in [0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF] where first >= 0xE0 {
                    let triple = pair + [third]
                    if !agrees(triple) { disagreements.append(triple) }
                    for fourth: UInt8 in [0x80, 0xC0] where first >= 0xF0 {
                        if !agrees(triple + [fourth]) { disagreements.append(triple + [fourth]) }
                    }
                }
            }
        }
        #expect(disagreements.isEmpty, "first disagreements: \(disagreements.prefix(5))")
    }

    @Test("long inputs checked in parts: a bad or cut sequence anywhere is found, also at a part's boundary")
    func longInputs() throws {
        let line = Array("SUMMARY:Zug München → Berlin 🚆 naïve café\r\n".utf8)
        var text: [UInt8] = []
        while text.count < 5 << 18 { text += line }
        #expect(agrees(text))
        // Every multi-byte character of one line broken in turn, at positions across the whole input.
        for start in stride(from: 0, to: text.count - line.count, by: text.count / 7 + 13) {
            let lineStart = start - start % line.count
            for offset in line.indices where line[offset] >= 0xC0 {
                var broken = text
                broken[lineStart + offset] = 0x41
                #expect(agrees(broken))
            }
        }
        // A four-byte character cut by every possible part boundary: bytes shifted one at a time.
        let emoji = Array("🚆".utf8)
        for shift in 0..<8 {
            var shifted = Array(repeating: UInt8(ascii: "a"), count: (1 << 20) - 2 + shift) + emoji
            shifted += Array(repeating: UInt8(ascii: "b"), count: 2 << 20)
            #expect(agrees(shifted))
            shifted.remove(at: (1 << 20) - 2 + shift + 1)
            #expect(agrees(shifted))
        }
    }
}
