import Foundation
import GraphICS
import ICalBridge
import Testing

@testable import GraphICSCommands

/// Every command's `--json` through one encoder in one style: two-space indent, `"key": value`, keys sorted,
/// slashes and non-ASCII text unescaped, a line feed at the end.
@Suite struct JSONOutputTests {
    @Test("objects are pretty-printed with sorted keys, nothing escaped that need not be")
    func style() throws {
        let text = try JSONOutput.text(
            .object([
                "b": .array([.int(1), .bool(true), .null]), "a": .string("https://x.example/ü \"q\""),
                "c": .object([:]), "d": .double(1.5),
            ]))
        #expect(
            text == """
                {
                  "a": "https://x.example/ü \\"q\\"",
                  "b": [
                    1,
                    true,
                    null
                  ],
                  "c": {},
                  "d": 1.5
                }

                """)
    }

    @Test("an Encodable value comes out in the same style, keys sorted, nil as the type encodes it")
    func encodable() throws {
        struct Value: Encodable {
            var zeta = "z/z"
            var alpha: Int? = nil
            var inner = ["y": 2, "x": 1]
            var list = [Int64(7)]
        }
        let text = String(decoding: try JSONOutput.data(encoding: Value()), as: UTF8.self)
        #expect(
            text == """
                {
                  "inner": {
                    "x": 1,
                    "y": 2
                  },
                  "list": [
                    7
                  ],
                  "zeta": "z/z"
                }
                """)
    }

    @Test("containers nested by hand keep their place among an array's values")
    func nestedContainers() throws {
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        struct Row: Encodable {
            func encode(to encoder: any Encoder) throws {
                var list = encoder.unkeyedContainer()
                try list.encode(1)
                var inner = list.nestedContainer(keyedBy: Key.self)
                try inner.encode("x", forKey: Key(stringValue: "k"))
                try list.encode(3)
                var pair = list.nestedUnkeyedContainer()
                try pair.encode(true)
            }
        }
        let value = try JSONValue(encoding: Row())
        #expect(value == .array([.int(1), .object(["k": .string("x")]), .int(3), .array([.bool(true)])]))
    }

    @Test("a JSONSerialization tree reads into the same values")
    func jsonObject() throws {
        let value = try JSONValue(jsonObject: ["n": NSNull(), "t": true, "i": 3, "s": ["a"]] as [String: Any])
        #expect(value == .object(["n": .null, "t": .bool(true), "i": .int(3), "s": .array([.string("a")])]))
    }

    @Test("the import report's JSON is written in the shared style")
    func importReport() throws {
        let report = ImportReport(results: [], isDryRun: true)
        let text = String(decoding: try report.jsonData(), as: UTF8.self)
        #expect(text.hasPrefix("{\n  \"dryRun\": true,\n  \"events\": [],\n  \"summary\": {\n"))
    }

    @Test("the import report written in parts, its results kept in memory or on disk, is byte for byte the whole")
    func importReportInParts() throws {
        let failed = ImportResult(file: "a.ics", uid: "x", action: .failed, error: "line 3: DTSTART is missing")
        var created = ImportResult(
            file: "a.ics", uid: "u/1", subject: "Kino: 哆啦A梦", action: .created, note: "not looked up: not signed in",
            when: "2026-12-01 10:00")
        created.isPreview = true
        var cancelled = created
        cancelled.uid = "u2"
        cancelled.recurrenceID = "20261201T090000Z"
        cancelled.action = .cancelled
        let groups = [[created, cancelled], [], [created]]
        let groupings: [[[ImportResult]]] = [groups, [], [[]]]
        for leading in [[], [failed]] {
            for groups in groupings {
                // A limit of 0 bytes keeps every group in the temporary file.
                for memoryLimit in [0, 8 << 20] {
                    let whole = ImportReport(results: leading + groups.flatMap { $0 }, isDryRun: true)
                    var counts: [ImportResult.Action: Int] = [:]
                    for result in groups.flatMap({ $0 }) { counts[result.action, default: 0] += 1 }
                    let encoded = try ImportReport.EncodedResults(memoryLimit: memoryLimit)
                    for group in groups { try encoded.append(try ImportReport.encoded(group)) }
                    var written = ByteBuffer()
                    try ImportReport.writeJSON(
                        isDryRun: true, leading: leading, encoded: encoded, counts: counts, into: &written)
                    #expect(
                        String(decoding: written.bytes, as: UTF8.self)
                            == String(decoding: try whole.jsonData(), as: UTF8.self))
                }
            }
        }
    }
}
