import Foundation
import GraphStandIn
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The built graph-ics against input made to exhaust it: a file past the 512 MB cap, a line of 20 MB,
/// 100,000 events each way, components and JSON nested thousands deep, a Graph answer past the transport's
/// 64 MB cap. Each is converted in bounded time and memory (peak RSS measured with `wait4`) or refused with
/// one clear sentence and the documented status; nothing crashes or hangs, no partial file is left.
///
/// The bounds are generous for a debug build on a busy two-core machine; each catches a regression that
/// reads a whole stream it should refuse, holds what it should stream, or turns quadratic.
@Suite struct LimitsTests {
    /// A folder for one test's files, removed afterwards.
    final class Folder {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("graph-ics-limits-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }

        func write(_ name: String, _ text: String) throws -> String {
            let file = url.appendingPathComponent(name)
            try Data(text.utf8).write(to: file)
            return file.path
        }
    }

    static func run(_ arguments: [String], in folder: Folder, stdin: String = "/dev/null") throws -> SpawnResult {
        try SpawnedGraphICS(arguments, environment: [:], in: folder.url, stdin: stdin).wait()
    }

    static func count(_ needle: String, in data: Data) -> Int {
        let pattern = Array(needle.utf8)
        var found = 0
        data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count >= pattern.count else { return }
            var index = 0
            while index <= raw.count - pattern.count {
                guard let hit = memchr(base + index, Int32(pattern[0]), raw.count - pattern.count - index + 1) else {
                    break
                }
                let at = UnsafeRawPointer(hit) - base
                if memcmp(base + at, pattern, pattern.count) == 0 { found += 1 }
                index = at + 1
            }
        }
        return found
    }

    /// Whether graph-ics was built with AddressSanitizer (`swift test --sanitize=address`, as
    /// `scripts/test-sanitizers` runs): its shadow memory, quarantine and checks make a run several times
    /// larger and slower, so the bounds grow with it.
    static let sanitized: Bool =
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
        || ProcessInfo.processInfo.environment["ASAN_OPTIONS"] != nil

    /// A memory bound in KiB for `mebibytes` MiB, tripled under AddressSanitizer.
    static func memory(_ mebibytes: Int) -> Int { mebibytes * 1024 * (sanitized ? 3 : 1) }

    /// A time bound in seconds, quadrupled under AddressSanitizer.
    static func seconds(_ seconds: Double) -> Double { seconds * (sanitized ? 4 : 1) }

    /// The "many events" count: 100,000; 20,000 under AddressSanitizer, whose run looks for memory errors,
    /// not limits, and would otherwise spend minutes here.
    static var manyEvents: Int { sanitized ? 20_000 : 100_000 }

    static let calendarHeader = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//graph-ics limits tests//EN\r\n"

    // MARK: Size caps

    /// A sparse file one byte past the cap: refused from its size, never read (a few MB of memory).
    @Test(arguments: [["convert"], ["import", "--dry-run", "--tz", "Europe/Berlin"]])
    func aFileLargerThan512MBIsRefusedWithoutReadingIt(command: [String]) throws {
        let folder = try Folder()
        let path = folder.url.appendingPathComponent("huge.ics").path
        let descriptor = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        try #require(descriptor >= 0)
        let header = Array((Self.calendarHeader + "BEGIN:VEVENT\r\nDESCRIPTION:").utf8)
        _ = header.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        try #require(ftruncate(descriptor, off_t(512 << 20) + 1) == 0)
        close(descriptor)

        let result = try Self.run(command + [path], in: folder)
        #expect(result.status == 65, "stderr: \(result.err)")
        #expect(result.stdout.isEmpty)
        #expect(result.errLines.first == "error: \(path): larger than 512 MB; refusing to read it", "\(result.err)")
        #expect(result.peakMemoryKiB < Self.memory(200), "peak memory \(result.peakMemoryKiB) KiB: the file was read")
        #expect(result.seconds < Self.seconds(10))
    }

    /// `graph-ics convert - < /dev/zero` stops at the cap instead of filling memory.
    @Test func endlessStandardInputIsCutOffAtTheCap() throws {
        let folder = try Folder()
        let result = try Self.run(["convert", "-"], in: folder, stdin: "/dev/zero")
        #expect(result.status == 65, "stderr: \(result.err)")
        #expect(result.stdout.isEmpty)
        #expect(result.errLines == ["error: <stdin>: larger than 512 MB; refusing to read it"], "\(result.err)")
        #expect(result.peakMemoryKiB < Self.memory(1024), "peak memory \(result.peakMemoryKiB) KiB")
    }

    // MARK: Long lines and many events

    @Test func aTwentyMegabyteDescriptionIsConvertedInBoundedTime() throws {
        let folder = try Folder()
        let description = String(repeating: "abcdefghij", count: 2_000_000)
        let file = try folder.write(
            "long.ics",
            Self.calendarHeader
                + "BEGIN:VEVENT\r\nUID:long@tests\r\nDTSTAMP:20261201T100000Z\r\nDTSTART:20261201T100000Z\r\n"
                + "DTEND:20261201T110000Z\r\nSUMMARY:Long\r\nDESCRIPTION:\(description)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        )
        let result = try Self.run(["convert", file, "--tz", "Europe/Berlin"], in: folder)
        #expect(result.status == 0, "stderr: \(result.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let event = try #require((object["value"] as? [[String: Any]])?.first)
        let body = try #require((event["body"] as? [String: Any])?["content"] as? String)
        #expect(body.contains(description))
        #expect(result.seconds < Self.seconds(30), "a 20 MB line took \(result.seconds) s")
        #expect(result.peakMemoryKiB < Self.memory(1024), "peak memory \(result.peakMemoryKiB) KiB")
    }

    @Test func oneHundredThousandVEventsAreConvertedInBoundedMemory() throws {
        let folder = try Folder()
        var text = Self.calendarHeader
        text.reserveCapacity(Self.manyEvents * 80)
        for index in 0..<Self.manyEvents {
            text += "BEGIN:VEVENT\r\nUID:e\(index)\r\nDTSTART:20270301T100000Z\r\nSUMMARY:E\(index)\r\nEND:VEVENT\r\n"
        }
        text += "END:VCALENDAR\r\n"
        let file = try folder.write("many.ics", text)
        let result = try Self.run(["convert", file, "--tz", "Europe/Berlin", "-o", "many.json"], in: folder)
        #expect(result.status == 0, "stderr: \(result.err)")
        let output = try Data(contentsOf: folder.url.appendingPathComponent("many.json"))
        #expect(Self.count(#""transactionId""#, in: output) == Self.manyEvents)
        #expect(result.peakMemoryKiB < Self.memory(1024), "peak memory \(result.peakMemoryKiB) KiB")
        #expect(result.seconds < Self.seconds(90), "100,000 VEVENTs took \(result.seconds) s")
    }

    /// The export direction streams: 100,000 Graph events (21 MB of JSON) need far less memory than their
    /// 70 MB of iCalendar.
    @Test func oneHundredThousandGraphEventsAreConvertedInBoundedMemory() throws {
        let folder = try Folder()
        var json = #"{"value":["#
        json.reserveCapacity(Self.manyEvents * 200)
        for index in 0..<Self.manyEvents {
            if index > 0 { json += "," }
            json +=
                #"{"id":"id\#(index)","iCalUId":"u\#(index)","subject":"E\#(index)","#
                + #""start":{"dateTime":"2026-12-01T10:00:00.0000000","timeZone":"UTC"},"#
                + #""end":{"dateTime":"2026-12-01T11:00:00.0000000","timeZone":"UTC"}}"#
        }
        json += "]}"
        let file = try folder.write("many.json", json)
        let result = try Self.run(["convert", file, "-o", "many.ics"], in: folder)
        #expect(result.status == 0, "stderr: \(result.err)")
        let output = try Data(contentsOf: folder.url.appendingPathComponent("many.ics"))
        #expect(Self.count("BEGIN:VEVENT\r\n", in: output) == Self.manyEvents)
        #expect(result.peakMemoryKiB < Self.memory(400), "peak memory \(result.peakMemoryKiB) KiB")
        #expect(result.seconds < Self.seconds(90), "100,000 Graph events took \(result.seconds) s")
    }

    // MARK: Nesting

    @Test(arguments: ["convert", "import"])
    func aNestingBombIsRefusedWithTheLineAndNoCrash(command: String) throws {
        let folder = try Folder()
        let depth = 200_000
        let file = try folder.write(
            "bomb.ics",
            Self.calendarHeader + "BEGIN:VEVENT\r\nUID:bomb@tests\r\nDTSTART:20261201T100000Z\r\n"
                + String(repeating: "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT5M\r\n", count: depth)
                + String(repeating: "END:VALARM\r\n", count: depth) + "END:VEVENT\r\nEND:VCALENDAR\r\n")
        let arguments =
            command == "convert" ? ["convert", file] : ["import", "--dry-run", "--tz", "Europe/Berlin", file]
        let result = try Self.run(arguments, in: folder)
        #expect(result.signal == nil, "graph-ics crashed with signal \(String(describing: result.signal))")
        #expect(result.status == 65, "stderr: \(result.err)")
        #expect(result.stdout.isEmpty)
        // VCALENDAR and VEVENT are 2 of the 64 levels: the 63rd VALARM, whose block starts on line 7 + 62 × 3,
        // is one too many.
        #expect(
            result.errLines.first
                == "error: \(file): line \(7 + 62 * 3): components are nested more than 64 levels deep; this is not a"
                + " calendar graph-ics reads", "\(result.err)")
        #expect(result.seconds < Self.seconds(10))
    }

    @Test func graphJSONNestedThousandsDeepIsRefused() throws {
        let folder = try Folder()
        let file = try folder.write("deep.json", #"{"value":[{"subject":"# + String(repeating: "[", count: 100_000))
        let result = try Self.run(["convert", file], in: folder)
        #expect(result.signal == nil)
        #expect(result.status == 65, "stderr: \(result.err)")
        #expect(result.errLines.count == 1 && result.err.contains("nested more than 64 levels deep"), "\(result.err)")
    }

    // MARK: A Graph answer past the cap

    /// A calendarView page of 65 MB (past the transport's 64 MB): the transfer stops at the cap, export
    /// exits 69 with one sentence, no file is written and the old one stays.
    @Test func aGraphAnswerLargerThanTheCapStopsTheExportCleanly() throws {
        let account = try StandInAccount()
        account.standIn.addUser(
            displayName: "Ada Lovelace", mail: "ada@contoso.example", mailboxTimeZone: "W. Europe Standard Time")
        let padding = String(repeating: "x", count: 65 << 20)
        let page = Data(
            (#"{"value":[{"id":"AAMk-huge","subject":"Huge","body":{"contentType":"text","content":""#
                + padding + #""}}]}"#).utf8)
        account.standIn.injectFault(
            .respond(
                LoopbackHTTPServer.Response(status: 200, headers: [("Content-Type", "application/json")], body: page)),
            forPathContaining: "calendarView", times: 10)
        let output = try OutputExpectation.existing(in: account.folder)
        let child = try SpawnedGraphICS(
            ["export", "--week", "2026-W49", "--tz", "Europe/Berlin", "-o", output.url.path],
            environment: account.tokenEnvironment(), in: account.folder)
        let result = try child.wait()
        expectOneClearError(
            status: result.status, stdout: result.stdout, errLines: result.errLines, expected: 69,
            mentioning: ["calendarView", "too large"])
        #expect(account.standIn.requests.filter { $0.path.hasSuffix("/calendarView") }.count == 1, "not retried")
        #expect(result.peakMemoryKiB < Self.memory(400), "peak memory \(result.peakMemoryKiB) KiB")
        try output.expectUntouched()
    }
}
