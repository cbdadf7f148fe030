import Foundation
import Testing

/// End-to-end tests of the built `graph-ics` executable: exit statuses, what goes to stdout and stderr, and the
/// files it writes.
@Suite(.tags(.zoneRules)) struct ConvertCommandTests {
    static let convertUsage =
        "Usage: graph-ics convert [FILE|-] [--to ics|graph-json] [--tz ZONE] [--as-meeting] [--strict]"
    static let topUsage = "Usage: graph-ics <command> [options]"
    static let seeHelp = "See 'graph-ics --help'."
    static let seeConvertHelp = "See 'graph-ics convert --help'."

    // MARK: Help, version, usage errors

    @Test("top-level help goes to stdout and exits 0", arguments: [["--help"], ["-h"], ["help"]])
    func topLevelHelp(arguments: [String]) throws {
        let result = try graphICS(arguments)
        #expect(result.status == 0)
        #expect(result.out.hasPrefix("graph-ics 0.1.0"))
        #expect(result.out.contains(Self.topUsage))
        #expect(result.out.contains("  convert "))
        #expect(result.stderr.isEmpty, "stderr: \(result.err)")
    }

    @Test(
        "convert help goes to stdout and exits 0",
        arguments: [["convert", "--help"], ["convert", "-h"], ["help", "convert"], ["convert", "x.json", "--help"]])
    func convertHelp(arguments: [String]) throws {
        let result = try graphICS(arguments)
        #expect(result.status == 0)
        #expect(result.out.hasPrefix(Self.convertUsage + "\n"))
        #expect(result.out.contains("--tz ZONE"))
        #expect(result.out.contains("Exit status:"))
        #expect(result.stderr.isEmpty, "stderr: \(result.err)")
    }

    @Test(
        "convert --to graph-json prints exactly the payloads import --dry-run would send",
        arguments: [
            "train-ticket.ics", "cinema-ticket.ics", "concert.ics", "invitation-request.ics", "meetup-series.ics",
        ], [[], ["--as-meeting"]])
    func convertMatchesImportDryRun(name: String, flags: [String]) throws {
        let file = Package.root.appendingPathComponent("fixtures/import/\(name)").path
        let converted = try graphICS(["convert", file, "--to", "graph-json", "--tz", "Europe/Berlin"] + flags)
        let dryRun = try graphICS(["import", "--dry-run", "--tz", "Europe/Berlin"] + flags + [file])
        #expect(converted.status == 0, "\(converted.err)")
        #expect(dryRun.status == 0, "\(dryRun.err)")
        #expect(converted.out.contains("graph-ics.source-version"))
        #expect(converted.out == dryRun.out)
        // Attendees are sent only with --as-meeting; otherwise they are written into the body.
        if flags.isEmpty { #expect(!converted.out.contains(#""attendees": [\#n"#)) }
        if name == "invitation-request.ics" {
            #expect(converted.out.contains(#""attendees": [\#n"#) == !flags.isEmpty)
            #expect(converted.out.contains("Attendees: ") == flags.isEmpty)
        }
        if name == "meetup-series.ics" {
            // The EXDATE and the RECURRENCE-ID override become follow-ups of the series.
            #expect(converted.out.contains(#""action": "cancelOccurrence""#))
            #expect(converted.out.contains(#""action": "patchOccurrence""#))
        }
    }

    @Test("no arguments is a usage error with the help on stderr")
    func noArguments() throws {
        let result = try graphICS([])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty, "stdout: \(result.out)")
        #expect(result.err.contains(Self.topUsage))
    }

    @Test("an unknown command prints error:, the usage line and the help hint on stderr")
    func unknownCommand() throws {
        let result = try graphICS(["frobnicate", "week.json"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty, "stdout: \(result.out)")
        #expect(
            result.errLines == ["error: unknown command 'frobnicate'", Self.topUsage, Self.seeHelp],
            "stderr: \(result.err)")
    }

    @Test("an unknown option to convert is a usage error naming the option")
    func unknownOption() throws {
        let result = try graphICS(["convert", Package.fixture("graph/sample-week.json").path, "--frobnicate"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty, "stdout: \(result.out)")
        #expect(result.errLines.count == 3, "stderr: \(result.err)")
        #expect(result.errLines.first?.hasPrefix("error: ") == true)
        #expect(result.errLines.first?.contains("--frobnicate") == true)
        #expect(result.errLines.dropFirst().first == Self.convertUsage)
        #expect(result.errLines.last == Self.seeConvertHelp)
    }

    @Test("--tz with a zone that does not exist is a usage error", arguments: ["--tz", "--tz="])
    func unknownTimeZoneOption(spelling: String) throws {
        let input = Package.fixture("graph/sample-week.json").path
        let zoneArguments = spelling == "--tz" ? ["--tz", "Mars/Olympus"] : ["--tz=Mars/Olympus"]
        let result = try graphICS(["convert", input] + zoneArguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty, "stdout: \(result.out)")
        #expect(result.errLines.first?.hasPrefix("error: ") == true)
        #expect(result.errLines.first?.contains("Mars/Olympus") == true, "stderr: \(result.err)")
        #expect(result.errLines.last == Self.seeConvertHelp)
    }

    // MARK: Input problems

    @Test("a missing input file exits 66 and names the file")
    func missingInput() throws {
        try withTemporaryDirectory { directory in
            let missing = directory.appendingPathComponent("no-such-week.json").path
            let result = try graphICS(["convert", missing])
            #expect(result.status == 66)
            #expect(result.stdout.isEmpty, "stdout: \(result.out)")
            #expect(result.err.contains(missing), "stderr: \(result.err)")
        }
    }

    @Test("a directory as input exits 66 and names it")
    func directoryInput() throws {
        try withTemporaryDirectory { directory in
            let result = try graphICS(["convert", directory.path])
            #expect(result.status == 66)
            #expect(result.stdout.isEmpty, "stdout: \(result.out)")
            #expect(result.err.contains(directory.path), "stderr: \(result.err)")
        }
    }

    /// A fixture in `fixtures/bad` that yields nothing usable, and a word its message must contain.
    struct UnusableInput: Sendable, CustomTestStringConvertible {
        var file: String
        var messageWord: String
        /// Whether the problem is in one event (whose id the message must name) rather than the whole file.
        var perEvent: Bool
        var testDescription: String { file }
    }

    static let unusableInputs = [
        UnusableInput(file: "not-json.json", messageWord: "JSON", perEvent: false),
        UnusableInput(file: "wrong-shape.json", messageWord: "value", perEvent: false),
        UnusableInput(file: "empty.json", messageWord: "empty", perEvent: false),
        UnusableInput(file: "missing-start.json", messageWord: "start", perEvent: true),
        UnusableInput(file: "unknown-zone.json", messageWord: "Mars Standard Time", perEvent: true),
    ]

    @Test("an input with nothing usable exits 65, names the file and prints no calendar", arguments: unusableInputs)
    func unusableInput(_ input: UnusableInput) throws {
        let path = Package.fixture("bad/" + input.file).path
        let result = try graphICS(["convert", path])
        #expect(result.status == 65, "stderr: \(result.err)")
        #expect(result.stdout.isEmpty, "stdout: \(result.out)")
        let errorLines = result.errLines.filter { $0.hasPrefix("error: ") }
        #expect(!errorLines.isEmpty, "stderr: \(result.err)")
        #expect(errorLines.allSatisfy { $0.contains(path) }, "stderr: \(result.err)")
        #expect(errorLines.contains { $0.contains(input.messageWord) }, "stderr: \(result.err)")
        if input.perEvent {
            for event in try Package.graphEvents("bad/" + input.file) {
                let id = try #require(event["id"] as? String)
                #expect(errorLines.contains { $0.contains(id) }, "no error names event \(id): \(result.err)")
            }
        }
    }

    @Test("a partly bad input exits 1 with the good events on stdout and each bad one named on stderr")
    func partlyBadInput() throws {
        let path = Package.fixture("bad/partly-bad.json").path
        let events = try Package.graphEvents("bad/partly-bad.json")
        let good = events.filter { ($0["subject"] as? String)?.hasPrefix("Good") == true }.compactMap {
            $0["id"] as? String
        }
        let bad = events.filter { ($0["subject"] as? String)?.hasPrefix("Bad") == true }.compactMap {
            $0["id"] as? String
        }
        try #require(good.count == 3 && bad.count == 2, "fixture changed: \(good) \(bad)")

        let result = try graphICS(["convert", path])
        #expect(result.status == 1, "stderr: \(result.err)")
        #expect(result.out.hasPrefix("BEGIN:VCALENDAR\r\n"))
        #expect(result.out.hasSuffix("END:VCALENDAR\r\n"))
        #expect(result.out.components(separatedBy: "BEGIN:VEVENT\r\n").count - 1 == good.count)
        let written = ICalendarText.events(result.out).compactMap(\.graphID)
        #expect(Set(written) == Set(good))

        let errorLines = result.errLines.filter { $0.hasPrefix("error: ") }
        #expect(errorLines.count == bad.count, "stderr: \(result.err)")
        for id in bad {
            #expect(errorLines.contains { $0.contains(id) && $0.contains(path) }, "\(id) not named: \(result.err)")
        }
        for id in good {
            #expect(!result.err.contains(id), "good event \(id) reported: \(result.err)")
        }
    }

    @Test(
        "iCalendar input becomes the Graph payloads import would send, whatever the file is called",
        arguments: ["ticket.ics", "ticket.json"])
    func iCalendarInput(fileName: String) throws {
        try withTemporaryDirectory { directory in
            let input = directory.appendingPathComponent(fileName)
            let calendar = """
                BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:ticket-1\r\n\
                SUMMARY:Cinema\r\nDTSTART;TZID=Europe/Berlin:20261205T201500\r\nDTEND;TZID=Europe/Berlin:20261205T223000\r\n\
                ORGANIZER;CN=Kino:mailto:kino@example.com\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n
                """
            try Data(calendar.utf8).write(to: input)
            let result = try graphICS(["convert", input.path])
            #expect(result.status == 0, "stderr: \(result.err)")
            let json = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
            let events = try #require(json["value"] as? [[String: Any]])
            #expect(events.count == 1)
            #expect(events.first?["subject"] as? String == "Cinema")
            #expect(events.first?["attendees"] == nil)
            #expect(
                (events.first?["body"] as? [String: Any])?["content"] as? String == "Organizer: Kino <kino@example.com>"
            )
            let start = try #require(events.first?["start"] as? [String: Any])
            #expect(start["dateTime"] as? String == "2026-12-05T20:15:00")
            #expect(start["timeZone"] as? String == "W. Europe Standard Time")
            let toICS = try graphICS(["convert", input.path, "--to", "ics"])
            #expect(toICS.status == 64, "converting iCalendar to iCalendar is a usage error")
        }
    }

    // MARK: Output

    @Test("-o writes a well-formed calendar file and nothing to stdout", arguments: Package.fixtureNames(in: "graph"))
    func outputFile(fixture: String) throws {
        try withTemporaryDirectory { directory in
            let output = directory.appendingPathComponent("out.ics")
            let result = try graphICS(["convert", Package.fixture("graph/" + fixture).path, "-o", output.path])
            #expect(result.status == 0, "stderr: \(result.err)")
            #expect(result.stdout.isEmpty, "stdout: \(result.out)")
            #expect(!result.err.contains("error:"), "stderr: \(result.err)")

            let bytes = try Data(contentsOf: output)
            let text = try #require(String(data: bytes, encoding: .utf8), "output is not UTF-8")
            #expect(text.hasPrefix("BEGIN:VCALENDAR\r\nPRODID:"))
            #expect(text.hasSuffix("\r\nEND:VCALENDAR\r\n"))
            #expect(text.contains("\r\nVERSION:2.0\r\n"))
            // CRLF everywhere: every LF follows a CR, every CR precedes an LF.
            let byteArray = [UInt8](bytes)
            for (index, byte) in byteArray.enumerated() {
                if byte == 0x0A {
                    #expect(index > 0 && byteArray[index - 1] == 0x0D, "bare LF at byte \(index)")
                } else if byte == 0x0D {
                    #expect(index + 1 < byteArray.count && byteArray[index + 1] == 0x0A, "bare CR at byte \(index)")
                }
            }
            let lines = text.components(separatedBy: "\r\n").dropLast()
            for line in lines {
                #expect(line.utf8.count <= 75, "line of \(line.utf8.count) octets: \(line)")
            }
            let inputEvents = try Package.graphEvents("graph/" + fixture).count
            #expect(ICalendarText.events(text).count == inputEvents)
            let entries = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(entries == ["out.ics"], "left behind: \(entries)")
        }
    }

    @Test(
        "standard input gives the same calendar as the file",
        arguments: [["convert", "-"], ["convert"]], ["sample-week.json", "long-unicode-text.json"])
    func standardInput(arguments: [String], fixture: String) throws {
        let url = Package.fixture("graph/" + fixture)
        let fromFile = try graphICS(["convert", url.path])
        let fromPipe = try graphICS(arguments, stdin: .pipe(Data(contentsOf: url)))
        #expect(fromFile.status == 0, "stderr: \(fromFile.err)")
        #expect(fromPipe.status == 0, "stderr: \(fromPipe.err)")
        #expect(fromPipe.out.hasPrefix("BEGIN:VCALENDAR\r\n"))
        #expect(fromPipe.out.contains("BEGIN:VEVENT\r\n"))
        #expect(ICalendarText.normalisingTimestamps(fromPipe.out) == ICalendarText.normalisingTimestamps(fromFile.out))
    }

    @Test("a calendar far larger than a pipe buffer goes through stdin and stdout whole")
    func largeCalendarThroughPipes() throws {
        let week = try Package.graphEvents("graph/sample-week.json")
        var events: [[String: Any]] = []
        for copy in 0..<40 {
            for event in week {
                var renamed = event
                renamed["id"] = ((event["id"] as? String) ?? "") + "-\(copy)"
                renamed["iCalUId"] = ((event["iCalUId"] as? String) ?? "") + "\(copy)"
                events.append(renamed)
            }
        }
        let input = try JSONSerialization.data(withJSONObject: ["value": events])
        try #require(input.count > 1 << 20)
        let result = try graphICS(["convert", "-"], stdin: .pipe(input))
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.stdout.count > 1 << 16)
        #expect(result.out.hasSuffix("END:VCALENDAR\r\n"))
        let written = ICalendarText.events(result.out).compactMap(\.graphID)
        #expect(written.count == events.count)
        #expect(Set(written).count == events.count)
    }

    @Test("a failed conversion leaves an existing output file untouched", arguments: unusableInputs)
    func failedConversionKeepsOutput(_ input: UnusableInput) throws {
        try withTemporaryDirectory { directory in
            let output = directory.appendingPathComponent("out.ics")
            let precious = Data("precious\n".utf8)
            try precious.write(to: output)
            let result = try graphICS(["convert", Package.fixture("bad/" + input.file).path, "-o", output.path])
            #expect(result.status == 65, "stderr: \(result.err)")
            #expect(result.stdout.isEmpty, "stdout: \(result.out)")
            #expect(try Data(contentsOf: output) == precious, "out.ics was replaced")
            let entries = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(entries == ["out.ics"], "left behind: \(entries)")
        }
    }

    @Test("-o into a folder that does not exist exits 73 and creates nothing")
    func outputIntoMissingFolder() throws {
        try withTemporaryDirectory { directory in
            let missingFolder = directory.appendingPathComponent("no-such-folder")
            let output = missingFolder.appendingPathComponent("out.ics")
            let result = try graphICS(["convert", Package.fixture("graph/sample-week.json").path, "-o", output.path])
            #expect(result.status == 73, "stderr: \(result.err)")
            #expect(result.stdout.isEmpty, "stdout: \(result.out)")
            #expect(result.err.contains(output.path), "stderr: \(result.err)")
            #expect(!FileManager.default.fileExists(atPath: missingFolder.path))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }

    @Test("-o into a path that cannot be a folder exits 73 and leaves the file alone")
    func outputUnderRegularFile() throws {
        // Permission bits do not stop root, so an unwritable place is a path below a regular file (ENOTDIR).
        try withTemporaryDirectory { directory in
            let blocker = directory.appendingPathComponent("somefile.txt")
            try Data("not a folder\n".utf8).write(to: blocker)
            let output = blocker.appendingPathComponent("out.ics")
            let result = try graphICS(["convert", Package.fixture("graph/sample-week.json").path, "-o", output.path])
            #expect(result.status == 73, "stderr: \(result.err)")
            #expect(result.stdout.isEmpty, "stdout: \(result.out)")
            #expect(result.err.contains(output.path), "stderr: \(result.err)")
            #expect(try Data(contentsOf: blocker) == Data("not a folder\n".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["somefile.txt"])
        }
    }

    @Test("-o naming an existing folder exits 73 and leaves the folder empty")
    func outputIsAFolder() throws {
        try withTemporaryDirectory { directory in
            let result = try graphICS(["convert", Package.fixture("graph/sample-week.json").path, "-o", directory.path])
            #expect(result.status == 73, "stderr: \(result.err)")
            #expect(result.stdout.isEmpty, "stdout: \(result.out)")
            #expect(result.err.contains(directory.path), "stderr: \(result.err)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }

    // MARK: Time zones

    /// Values of `originalStartTimeZone` that name no real zone.
    static let sentinelZones: Set<String> = [
        "tzone://Microsoft/Custom", "tzone://Microsoft/Utc", "Customized Time Zone", "",
    ]

    @Test("--tz places events with a sentinel original zone in that zone and warns about each")
    func sentinelZonesWithMailboxZone() throws {
        let path = Package.fixture("graph/sentinel-zones.json").path
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let result = try graphICS(["convert", path, "--tz", "Europe/Berlin"])
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(!result.err.contains("error:"), "stderr: \(result.err)")
        let written = ICalendarText.events(result.out)
        let warnings = result.errLines.filter { $0.hasPrefix("warning: ") }
        var checked = 0
        for event in try Package.graphEvents("graph/sentinel-zones.json") {
            let id = try #require(event["id"] as? String)
            let original = event["originalStartTimeZone"] as? String
            guard original == nil || Self.sentinelZones.contains(original ?? "") else { continue }
            let start = try #require(event["start"] as? [String: Any])
            #expect(start["timeZone"] as? String == "UTC")
            let instant = try ICalTime.graphUTC(try #require(start["dateTime"] as? String))
            let vevent = try #require(written.first { $0.graphID == id }, "event \(id) missing")
            #expect(vevent.line("DTSTART") == "DTSTART;TZID=Europe/Berlin:" + ICalTime.local(instant, in: berlin))
            if original != nil {
                #expect(
                    warnings.contains { $0.contains(id) && $0.contains("Europe/Berlin") },
                    "no warning names \(id): \(result.err)")
            }
            checked += 1
        }
        #expect(checked >= 4)
        // The zone is described once, so readers know the TZID.
        #expect(result.out.components(separatedBy: "\r\nTZID:Europe/Berlin\r\n").count == 2)
    }

    @Test("without --tz events with a sentinel original zone are in UTC and the warning points to --tz")
    func sentinelZonesWithoutMailboxZone() throws {
        let path = Package.fixture("graph/sentinel-zones.json").path
        let result = try graphICS(["convert", path])
        #expect(result.status == 0, "stderr: \(result.err)")
        let written = ICalendarText.events(result.out)
        let warnings = result.errLines.filter { $0.hasPrefix("warning: ") }
        var checked = 0
        for event in try Package.graphEvents("graph/sentinel-zones.json") {
            let id = try #require(event["id"] as? String)
            let original = event["originalStartTimeZone"] as? String
            guard original == nil || Self.sentinelZones.contains(original ?? "") else { continue }
            let start = try #require(event["start"] as? [String: Any])
            let instant = try ICalTime.graphUTC(try #require(start["dateTime"] as? String))
            let vevent = try #require(written.first { $0.graphID == id }, "event \(id) missing")
            #expect(vevent.line("DTSTART") == "DTSTART:" + ICalTime.utc(instant))
            if original != nil {
                #expect(
                    warnings.contains { $0.contains(id) && $0.contains("--tz") },
                    "no warning names \(id): \(result.err)"
                )
            }
            checked += 1
        }
        #expect(checked >= 4)
        #expect(!result.out.contains("TZID=Europe/Berlin"))
    }

    @Test("times in the repeated hour of a DST fold are written in UTC, other times as local time with TZID")
    func dstFold() throws {
        let zones = [
            "W. Europe Standard Time": "Europe/Berlin",
            "Pacific Standard Time": "America/Los_Angeles",
            "AUS Eastern Standard Time": "Australia/Sydney",
        ]
        // The fixture's events all start in a repeated hour; a copy of each four hours later is outside it and
        // must come out as local time.
        let fixture = try Package.graphEvents("graph/dst-fold.json")
        var events = fixture
        for event in fixture {
            var later = event
            for key in ["start", "end"] {
                var value = try #require(event[key] as? [String: Any])
                let instant = try ICalTime.graphUTC(try #require(value["dateTime"] as? String))
                let shifted = ICalTime.utc(instant.addingTimeInterval(4 * 3600))
                value["dateTime"] = Self.graphDateTime(fromICal: shifted)
                later[key] = value
            }
            later["id"] = ((event["id"] as? String) ?? "") + "-later"
            later["iCalUId"] = ((event["iCalUId"] as? String) ?? "") + "1"
            events.append(later)
        }

        try withTemporaryDirectory { directory in
            let input = directory.appendingPathComponent("dst-fold-and-later.json")
            try JSONSerialization.data(withJSONObject: ["value": events]).write(to: input)
            for file in [Package.fixture("graph/dst-fold.json"), input] {
                let result = try graphICS(["convert", file.path])
                #expect(result.status == 0, "stderr: \(result.err)")
                let written = ICalendarText.events(result.out)
                let expectedEvents = file == input ? events : fixture
                #expect(written.count == expectedEvents.count)
                var inFold = 0
                var outside = 0
                for event in expectedEvents {
                    let id = try #require(event["id"] as? String)
                    let vevent = try #require(written.first { $0.graphID == id }, "event \(id) missing")
                    for (key, property) in [("start", "DTSTART"), ("end", "DTEND")] {
                        let zoneKey = key == "start" ? "originalStartTimeZone" : "originalEndTimeZone"
                        let windows = try #require(event[zoneKey] as? String)
                        let iana = try #require(zones[windows], "no IANA name for \(windows)")
                        let zone = try #require(TimeZone(identifier: iana))
                        let value = try #require(event[key] as? [String: Any])
                        #expect(value["timeZone"] as? String == "UTC")
                        let instant = try ICalTime.graphUTC(try #require(value["dateTime"] as? String))
                        let expected: String
                        if ICalTime.isInFold(instant, in: zone) {
                            expected = property + ":" + ICalTime.utc(instant)
                            if key == "start" { inFold += 1 }
                        } else {
                            expected = property + ";TZID=" + iana + ":" + ICalTime.local(instant, in: zone)
                            if key == "start" { outside += 1 }
                        }
                        #expect(vevent.line(property) == expected, "event \(id)")
                    }
                }
                #expect(inFold == fixture.count, "every start in the fixture is in a repeated hour")
                #expect(outside == expectedEvents.count - fixture.count)
            }
        }
    }

    /// `20261025T043000Z` → `2026-10-25T04:30:00.0000000`.
    static func graphDateTime(fromICal value: String) -> String {
        let characters = Array(value)
        func part(_ range: Range<Int>) -> String { String(characters[range]) }
        return part(0..<4) + "-" + part(4..<6) + "-" + part(6..<8) + "T" + part(9..<11) + ":" + part(11..<13) + ":"
            + part(13..<15) + ".0000000"
    }

    // MARK: Floating times

    /// A ticket with floating times (no TZID, no Z), like Deutsche Bahn's.
    static let floatingTicket = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//test//floating ticket//EN\r
        BEGIN:VEVENT\r
        UID:floating-train-1@test\r
        DTSTAMP:20270701T120000Z\r
        DTSTART:20270822T102700\r
        DTEND:20270822T205200\r
        SUMMARY:ICE 9551 Berlin - Paris\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    /// The single payload of a graph-json conversion.
    static func onlyPayload(_ result: ProcessResult) throws -> [String: Any] {
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let payloads = try #require(object["value"] as? [[String: Any]])
        try #require(payloads.count == 1, "stdout: \(result.out)")
        return payloads[0]
    }

    static func graphTime(_ payload: [String: Any], _ key: String) -> (dateTime: String?, timeZone: String?) {
        let value = payload[key] as? [String: Any]
        return (value?["dateTime"] as? String, value?["timeZone"] as? String)
    }

    @Test("floating times: --tz, else the zone TZ names, else the system's zone; a note names the zone used")
    func floatingTimesFollowOneRule() throws {
        try withTemporaryDirectory { directory in
            let ticket = directory.appendingPathComponent("ticket.ics")
            try Data(Self.floatingTicket.utf8).write(to: ticket)
            let fromTZ = try graphICS(["convert", ticket.path], environment: ["TZ": "Europe/Berlin"])
            #expect(fromTZ.status == 0, "stderr: \(fromTZ.err)")
            let payload = try Self.onlyPayload(fromTZ)
            #expect(Self.graphTime(payload, "start") == ("2027-08-22T10:27:00", "W. Europe Standard Time"))
            #expect(Self.graphTime(payload, "end") == ("2027-08-22T20:52:00", "W. Europe Standard Time"))
            #expect(
                fromTZ.errLines == [
                    "note: \(ticket.path): floating times (no TZID) read in Europe/Berlin, the zone TZ names; "
                        + "--tz chooses another"
                ], "stderr: \(fromTZ.err)")

            let fromOption = try graphICS(
                ["convert", ticket.path, "--tz", "America/New_York"], environment: ["TZ": "Europe/Berlin"])
            #expect(fromOption.status == 0, "stderr: \(fromOption.err)")
            #expect(
                Self.graphTime(try Self.onlyPayload(fromOption), "start") == (
                    "2027-08-22T10:27:00", "Eastern Standard Time"
                ))
            #expect(
                fromOption.errLines == [
                    "note: \(ticket.path): floating times (no TZID) read in America/New_York, given with --tz"
                ], "stderr: \(fromOption.err)")
        }
    }

    @Test("without --tz or TZ, floating times are read in the system's zone, as Foundation reads it")
    func floatingTimesInTheSystemZone() throws {
        guard ProcessInfo.processInfo.environment["TZ"] == nil else {
            print("ConvertCommandTests: TZ is set for the tests, so the system's zone is not what graph-ics would use")
            return
        }
        try withTemporaryDirectory { directory in
            let ticket = directory.appendingPathComponent("ticket.ics")
            try Data(Self.floatingTicket.utf8).write(to: ticket)
            let result = try graphICS(["convert", ticket.path])
            #expect(result.status == 0, "stderr: \(result.err)")
            let note = try #require(result.errLines.first, "no note")
            let prefix = "note: \(ticket.path): floating times (no TZID) read in "
            try #require(note.hasPrefix(prefix) && note.contains(", the system's zone"), "stderr: \(result.err)")
            let name = String(note.dropFirst(prefix.count).prefix { $0 != "," })
            let named = try #require(TimeZone(identifier: name), "'\(name)' is not a zone Foundation knows")
            var components = DateComponents()
            (components.year, components.month, components.day, components.hour) = (2027, 8, 22, 10)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .current
            let date = try #require(calendar.date(from: components))
            #expect(named.secondsFromGMT(for: date) == TimeZone.current.secondsFromGMT(for: date), "\(name)")
            #expect(!result.err.contains("warning: "), "stderr: \(result.err)")
        }
    }

    @Test("convert with TZ set to the mailbox's zone prints what import --dry-run sends for that mailbox")
    func floatingTimesAsImportReadsThem() throws {
        let account = try StandInAccount()
        account.standIn.addUser(
            displayName: "Megan Bowen", mail: "megan@contoso.example", mailboxTimeZone: "W. Europe Standard Time")
        let ticket = account.folder.appendingPathComponent("ticket.ics")
        try Data(Self.floatingTicket.utf8).write(to: ticket)
        let dryRun = try account.run(["import", "--dry-run", ticket.path], environment: account.tokenEnvironment())
        #expect(dryRun.status == 0, "stderr: \(dryRun.err)")
        #expect(
            dryRun.errLines.contains(
                "note: \(ticket.path): floating times (no TZID) read in Europe/Berlin, the mailbox's zone; "
                    + "--tz chooses another"), "stderr: \(dryRun.err)")
        let converted = try graphICS(["convert", ticket.path], environment: ["TZ": "Europe/Berlin"])
        #expect(converted.status == 0, "stderr: \(converted.err)")
        #expect(converted.out == dryRun.out)
    }

    @Test("a file that is not UTF-8 is read as Windows-1252: curly quotes and dashes stay, undefined bytes go")
    func windows1252Input() throws {
        var bytes = Array(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:cp1252\r\nDTSTART:20261201T100000Z\r\n"
                .utf8)
        bytes += Array("SUMMARY:".utf8) + [0x93, 0x48, 0x69, 0x94, 0x20, 0x96, 0x20, 0x6F, 0x81, 0x6B, 0x0D, 0x0A]
        bytes += Array("DTEND:20261201T110000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8)
        let result = try graphICS(["convert", "-", "--to", "graph-json"], stdin: .pipe(Data(bytes)))
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.out.contains("\"\u{201C}Hi\u{201D} \u{2013} ok\""), "stdout: \(result.out)")
        #expect(!result.out.unicodeScalars.contains { (0x80...0x9F).contains($0.value) }, "no C1 control characters")
        #expect(
            result.err.contains(
                "read as Windows-1252 (Latin-1 as the web reads it); 1 byte Windows-1252 leaves undefined (0x81, "
                    + "0x8D, 0x8F, 0x90, 0x9D) dropped"), "stderr: \(result.err)")
    }
}
