import Foundation
import TestSupport
import Testing

@testable import GraphICSServe

@Suite struct GzipTests {
    private static var calendar: Data {
        Data(
            (0..<2000).map { "BEGIN:VEVENT\r\nUID:event-\($0)@example.com\r\nSUMMARY:Meeting \($0)\r\nEND:VEVENT\r\n" }
                .joined().utf8)
    }

    @Test("compress writes a gzip stream that decompress reads back byte for byte, smaller than the input")
    func roundTrip() throws {
        let compressed = try Gzip.compress(Self.calendar)
        #expect(compressed.prefix(3) == Data([0x1f, 0x8b, 0x08]))
        #expect(compressed.count < Self.calendar.count / 4)
        #expect(try Gzip.decompress(compressed) == Self.calendar)
        #expect(try Gzip.decompress(Gzip.compress(Data())) == Data())
    }

    @Test("gzip -dc reads what compress wrote")
    func gzipToolReadsIt() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("graph-ics-\(UUID().uuidString).gz")
        defer { try? FileManager.default.removeItem(at: file) }
        try Gzip.compress(Self.calendar, level: 9).write(to: file)
        let run = try runProgram("/usr/bin/gzip", ["-dc", file.path])
        #expect(run.status == 0, "\(run.err)")
        #expect(Data(run.out.utf8) == Self.calendar)
    }

    @Test("decompress refuses bytes that are not gzip, a truncated stream, and output past its limit")
    func decompressRefusesBadInput() throws {
        #expect(throws: GzipError.self) { try Gzip.decompress(Data("BEGIN:VCALENDAR".utf8)) }
        let compressed = try Gzip.compress(Self.calendar)
        let truncated = #expect(throws: GzipError.self) { try Gzip.decompress(compressed.prefix(compressed.count / 2)) }
        #expect(truncated?.description == "the gzip stream ends before its last block")
        #expect(throws: GzipError.self) { try Gzip.decompress(compressed, limit: 1000) }
    }

    @Test("A level outside 0…9 is a GzipError from zlib")
    func badLevel() {
        #expect(throws: GzipError.self) { try Gzip.compress(Self.calendar, level: 42) }
    }
}
