import Foundation
import Testing

@testable import ICalBridge

@Suite struct CalendarWriterTests {
    func event(_ uid: String, start: Int64, text: String) -> EncodedEvent {
        EncodedEvent(
            text: Array("BEGIN:VEVENT\r\nUID:\(uid)\r\nSUMMARY:\(text)\r\nEND:VEVENT\r\n".utf8),
            uid: uid,
            sortStart: start,
            zoneUses: []
        )
    }

    @Test("events spooled to disk come back whole and sorted, the same as from memory")
    func spoolOnDisk() throws {
        var outputs: [String] = []
        for limit in [0, 32 << 20] {
            let writer = try CalendarWriter(spoolMemoryLimit: limit)
            for index in (0..<300).reversed() {
                try writer.add(
                    event("uid-\(index)", start: Int64(index % 7), text: String(repeating: "x", count: index)))
            }
            var buffer = ByteBuffer()
            try writer.finish(into: &buffer)
            outputs.append(String(decoding: buffer.bytes, as: UTF8.self))
        }
        #expect(outputs[0] == outputs[1])
        let uids = Fixtures.lines(outputs[0]).filter { $0.hasPrefix("UID:") }
        #expect(uids.count == 300)
        // Start first (index % 7), then UID as text.
        #expect(uids.first == "UID:uid-0")
        #expect(uids[1] == "UID:uid-105")
    }
}
