import Foundation
import Testing

@testable import ICalBridge

#if canImport(Glibc)
    import Glibc
#endif

/// Input built to hurt the conversions — a line of many megabytes, a hundred thousand events, components or
/// JSON nested thousands deep — is converted in bounded time or refused with a clear error; nothing crashes
/// or hangs. (The time bounds are generous for a debug build on a busy machine: each guards against a
/// quadratic or unbounded path, which would take minutes.)
@Suite struct InputLimitsTests {
    /// A time bound in seconds, quadrupled when the tests run under AddressSanitizer (`scripts/test-sanitizers`).
    static func bound(_ seconds: Double) -> Double {
        let sanitized =
            dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
            || ProcessInfo.processInfo.environment["ASAN_OPTIONS"] != nil
        return seconds * (sanitized ? 4 : 1)
    }

    static let header = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//graph-ics limits tests//EN\r\n"

    static func vevent(_ uid: String, _ lines: [String]) -> String {
        ([
            "BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20261201T100000Z", "DTSTART:20261201T100000Z",
            "DTEND:20261201T110000Z",
        ] + lines + ["END:VEVENT"]).joined(separator: "\r\n") + "\r\n"
    }

    static func plan(_ text: String) throws -> ImportPlan {
        try ICSToGraph.plan(Data(text.utf8), options: ImportOptions(file: "limits.ics"))
    }

    /// Seconds `body` takes.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let elapsed = try clock.measure(body)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    /// `text` folded into 75-octet lines as RFC 5545 writes long values.
    static func folded(_ text: String) -> String {
        var lines: [String] = []
        var rest = Substring(text)
        lines.append(String(rest.prefix(75)))
        rest = rest.dropFirst(75)
        while !rest.isEmpty {
            lines.append(" " + rest.prefix(74))
            rest = rest.dropFirst(74)
        }
        return lines.joined(separator: "\r\n")
    }

    // MARK: iCalendar in

    /// libical's own string reader looked for the next line feed across the whole rest of the text for every
    /// 80 bytes it read: a 20 MB line took minutes. Unfolded and folded, it now takes about a second.
    @Test(arguments: [false, true])
    func aTwentyMegabyteDescriptionIsReadInLinearTime(folded: Bool) throws {
        let description = String(repeating: "0123456789", count: 2_000_000)
        let line = "DESCRIPTION:" + description
        let text =
            Self.header + Self.vevent("long@tests", [folded ? Self.folded(line) : line, "SUMMARY:Long"])
            + "END:VCALENDAR\r\n"
        var plan = ImportPlan()
        let seconds = try Self.seconds { plan = try Self.plan(text + "") }
        #expect(seconds < Self.bound(20), "a 20 MB line took \(seconds) s")
        let content = try #require(plan.events.first?.payload.body?.content)
        #expect(content.contains(description))
        #expect(plan.events.first?.payload.subject == "Long")
    }

    /// libical walks and frees component trees recursively: a file of a hundred thousand nested components
    /// crashed graph-ics with a stack overflow. Past 64 levels the file is refused, naming the line.
    @Test(arguments: ["VALARM", "X-FOO"])
    func componentsNestedThousandsDeepAreRefusedNamingTheLine(component: String) throws {
        let depth = 100_000
        let opening = component == "VALARM" ? "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT5M\r\n" : "BEGIN:X-FOO\r\n"
        let body = String(repeating: opening, count: depth) + String(repeating: "END:\(component)\r\n", count: depth)
        let text = Self.header + Self.vevent("deep@tests", ["SUMMARY:Deep", body + "X-END:1"]) + "END:VCALENDAR\r\n"
        var caught: ICalBridgeError?
        let seconds = Self.seconds {
            do { _ = try Self.plan(text) } catch let error as ICalBridgeError { caught = error } catch {}
        }
        let error = try #require(caught)
        #expect(error.code == .badInput)
        #expect(error.description.hasPrefix("limits.ics: line "), "\(error)")
        #expect(error.description.contains("nested more than 64 levels deep"), "\(error)")
        #expect(seconds < Self.bound(10))
    }

    @Test func componentsNestedSixtyLevelsDeepAreRead() throws {
        let body =
            String(repeating: "BEGIN:X-FOO\r\nX-A:1\r\n", count: 60) + String(repeating: "END:X-FOO\r\n", count: 60)
        let text =
            Self.header + Self.vevent("nested@tests", ["SUMMARY:Nested", body + "X-END:1"]) + "END:VCALENDAR\r\n"
        let plan = try Self.plan(text)
        #expect(plan.events.count == 1)
        #expect(plan.events.first?.payload.subject == "Nested")
    }

    @Test func anUnclosedNestingBombIsRefusedToo() throws {
        let text =
            Self.header + "BEGIN:VEVENT\r\nUID:open@tests\r\n" + String(repeating: "BEGIN:X-FOO\r\n", count: 200_000)
        #expect(throws: ICalBridgeError.self) { try Self.plan(text) }
    }

    // MARK: Graph JSON in

    static func convert(_ json: Data) throws -> (GraphToICS.Summary, [UInt8]) {
        var sink = ByteBuffer()
        let summary = try GraphToICS.convert(json, options: ExportOptions(file: "limits.json"), into: &sink)
        return (summary, sink.bytes)
    }

    @Test(arguments: ["[", #"{"value":["#, #"{"value":[{"subject":"#])
    func jsonNestedThousandsDeepIsRefused(prefix: String) throws {
        let json = prefix + String(repeating: #"{"a":["#, count: 50_000)
        #expect {
            _ = try Self.convert(Data(json.utf8))
        } throws: { error in
            guard let error = error as? ICalBridgeError else { return false }
            return error.code == .badInput && error.description.contains("nested more than 64 levels deep")
        }
    }

    @Test func aTwentyMegabyteBodyIsWrittenInFoldedLines() throws {
        let content = String(repeating: "Zürich → 東京. ", count: 1_000_000)
        let event: [String: Any] = [
            "id": "AAMk-big", "iCalUId": "big@tests", "subject": "Big",
            "body": ["contentType": "text", "content": content],
            "start": ["dateTime": "2026-12-01T10:00:00.0000000", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-01T11:00:00.0000000", "timeZone": "UTC"],
        ]
        let json = try JSONSerialization.data(withJSONObject: ["value": [event]])
        var output: [UInt8] = []
        var summary: GraphToICS.Summary?
        let seconds = try Self.seconds { (summary, output) = try Self.convert(json) }
        #expect(seconds < Self.bound(20), "a 20 MB body took \(seconds) s")
        #expect(summary?.written == 1)
        #expect(output.count > content.utf8.count)
        // Every line (CRLF-terminated) is at most 75 octets.
        var longest = 0
        var start = 0
        output.withUnsafeBufferPointer { bytes in
            for index in bytes.indices where bytes[index] == 0x0A {
                longest = max(longest, index - 1 - start)
                start = index + 1
            }
        }
        #expect(longest <= 75, "a line of \(longest) octets")
    }
}
