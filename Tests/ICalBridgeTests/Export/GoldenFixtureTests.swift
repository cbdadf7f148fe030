import Foundation
import Testing

@testable import ICalBridge

/// Every `fixtures/graph/NAME.json` converts to exactly `fixtures/ics/NAME.ics`, DTSTAMP included: it is
/// each event's `lastModifiedDateTime`, so the same input always gives the same bytes.
///
/// `RECORD_FIXTURES=1 swift test --filter GoldenFixtureTests` rewrites the goldens and fails on purpose,
/// so that a recording is never mistaken for a passing run: review the diff, then run again.
@Suite(.tags(.zoneRules)) struct GoldenFixtureTests {
    @Test("Graph JSON fixture converts to its golden .ics", arguments: Fixtures.graphNames)
    func matchesGolden(name: String) throws {
        let input = try Fixtures.data("graph/\(name).json")
        let (text, summary) = try Fixtures.convert(input, file: "fixtures/graph/\(name).json")
        #expect(summary.diagnostics.allSatisfy { $0.severity == .warning }, "\(summary.diagnostics)")
        let goldenURL = Fixtures.root.appendingPathComponent("ics/\(name).ics")
        if ProcessInfo.processInfo.environment["RECORD_FIXTURES"] == "1" {
            try text.write(to: goldenURL, atomically: true, encoding: .utf8)
            Issue.record("recorded \(goldenURL.path); run again without RECORD_FIXTURES to compare")
            return
        }
        // The VTIMEZONEs are judged by their offsets against the installed tzdata, and compared with the
        // golden by TZID only: a tzdata release may change their form, and must change no verdict.
        for zone in VTimezoneExactness.vtimezones(in: text) {
            let span = try #require(
                VTimezoneExactness.span(of: text, tzid: zone.tzid, vtimezone: zone.text), "\(name): \(zone.tzid)")
            let mismatches = VTimezoneExactness.mismatches(zone.text, zone: zone.tzid, from: span.from, to: span.to)
            #expect(mismatches.isEmpty, "\(name): \(mismatches)")
            // And read the way vobject (so Radicale) and dateutil's tzical read it.
            let asLocal = VTimezoneExactness.readingUntilAsLocal(zone.text)
            let misread = VTimezoneExactness.mismatches(asLocal, zone: zone.tzid, from: span.from, to: span.to)
            #expect(misread.isEmpty, "\(name), UNTIL read as local time: \(misread)")
        }
        let golden = VTimezoneExactness.normalisingVTimezones(try String(contentsOf: goldenURL, encoding: .utf8))
        let actual = VTimezoneExactness.normalisingVTimezones(text)
        if actual != golden {
            let actualLines = actual.split(separator: "\r\n", omittingEmptySubsequences: false)
            let goldenLines = golden.split(separator: "\r\n", omittingEmptySubsequences: false)
            let firstDifference = zip(actualLines, goldenLines).enumerated().first { $0.element.0 != $0.element.1 }
            Issue.record(
                """
                \(name).ics differs from the golden file, first at line \((firstDifference?.offset ?? min(actualLines.count, goldenLines.count)) + 1):
                  got:      \(firstDifference.map { String($0.element.0) } ?? "<\(actualLines.count) lines>")
                  expected: \(firstDifference.map { String($0.element.1) } ?? "<\(goldenLines.count) lines>")
                """
            )
        }
    }

    @Test("every Graph fixture has a golden partner and the other way round")
    func fixturesArePaired() throws {
        let icsFolder = Fixtures.root.appendingPathComponent("ics")
        let goldens = try FileManager.default.contentsOfDirectory(atPath: icsFolder.path)
            .filter { $0.hasSuffix(".ics") }.map { String($0.dropLast(4)) }.sorted()
        #expect(!Fixtures.graphNames.isEmpty)
        #expect(goldens == Fixtures.graphNames)
    }

    @Test("golden output obeys the format rules: CRLF, 75 octets, zones before events, every TZID defined")
    func formatRules() throws {
        for name in Fixtures.graphNames {
            let (text, _) = try Fixtures.convert(try Fixtures.data("graph/\(name).json"))
            let bytes = Array(text.utf8)
            var lineStart = 0
            for index in bytes.indices where bytes[index] == 0x0A {
                #expect(index > 0 && bytes[index - 1] == 0x0D, "\(name): LF without CR")
                let length = index - 1 - lineStart
                #expect(length <= 75, "\(name): a line of \(length) octets")
                // A folded line must not start inside a UTF-8 sequence.
                if lineStart < bytes.count {
                    #expect(bytes[lineStart] & 0xC0 != 0x80, "\(name): fold inside a character")
                }
                lineStart = index + 1
            }
            let lines = Fixtures.lines(text)
            #expect(lines.first == "BEGIN:VCALENDAR")
            #expect(lines.last == "END:VCALENDAR")
            #expect(lines.contains("VERSION:2.0"))
            #expect(lines.contains("METHOD:PUBLISH"))
            #expect(lines.contains { $0.hasPrefix("PRODID:") })
            let defined = Set(lines.filter { $0.hasPrefix("TZID:") }.map { String($0.dropFirst(5)) })
            var used = Set<String>()
            for line in lines {
                guard let range = line.range(of: ";TZID=") else { continue }
                let rest = line[range.upperBound...]
                used.insert(String(rest.prefix { $0 != ":" && $0 != ";" }))
            }
            #expect(used.isSubset(of: defined), "\(name): TZIDs without VTIMEZONE: \(used.subtracting(defined))")
            #expect(!defined.contains { $0.hasPrefix("/") }, "\(name): libical's TZID prefix leaked")
            if let lastZone = lines.lastIndex(of: "END:VTIMEZONE"),
                let firstEvent = lines.firstIndex(of: "BEGIN:VEVENT")
            {
                #expect(lastZone < firstEvent, "\(name): a VTIMEZONE after a VEVENT")
            }
        }
    }
}

/// libical, the library graph-ics builds on, reads every exported VEVENT back without complaint and with
/// the texts Graph gave.
@Suite(.tags(.zoneRules)) struct LibicalReadBackTests {
    @Test(
        "libical parses each fixture's output without X-LIC-ERROR and gets every subject and category back",
        arguments: Fixtures.graphNames)
    func readsBack(name: String) throws {
        let data = try Fixtures.data("graph/\(name).json")
        let (text, _) = try Fixtures.convert(data)
        let parsed = try #require(ICalComponent.parse(text))
        #expect(parsed.parserErrors.isEmpty, "\(parsed.parserErrors)")
        let document = try GraphEventDocument.decode(data, file: name)
        var subjects: [String: String] = [:]
        var categories: [String: [String]] = [:]
        for event in parsed.events {
            guard let id = ICalComponent.value(of: "X-GRAPH-ICS-EVENT-ID", in: event) else { continue }
            subjects[id] = ICalComponent.value(of: "SUMMARY", in: event) ?? ""
            categories[id] = ICalComponent.values(of: "CATEGORIES", in: event)
        }
        for event in document.events {
            guard let id = event.id, let subject = subjects[id] else {
                Issue.record("\(name): event \(event.id ?? "?") missing from the output")
                continue
            }
            let expected = (event.subject ?? "").replacing("\r\n", with: "\n").replacing("\r", with: "\n")
            // libical's parser drops spaces at the ends of a value; scripts/referee.py checks them.
            #expect(subject == expected.trimmingSpaces(), "\(name): \(id)")
            let expectedCategories = (event.categories ?? []).filter { !$0.trimmingSpaces().isEmpty }
            #expect(categories[id] == expectedCategories, "\(name): \(id)")
        }
    }
}
