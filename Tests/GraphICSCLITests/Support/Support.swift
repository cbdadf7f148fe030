import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The package's folders.
enum Package {
    /// The folder holding `Package.swift` and `fixtures/`.
    static var root: URL { PackageRoot.url }

    /// `fixtures/<relativePath>`, e.g. `graph/dst-fold.json`.
    static func fixture(_ relativePath: String) -> URL {
        root.appendingPathComponent("fixtures").appendingPathComponent(relativePath)
    }

    /// The file names (`name.json`) in `fixtures/<folder>`, sorted.
    static func fixtureNames(in folder: String) -> [String] {
        let path = root.appendingPathComponent("fixtures").appendingPathComponent(folder).path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }

    /// The event objects of a Graph JSON fixture (a calendarView response with `value`).
    static func graphEvents(_ relativePath: String) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: fixture(relativePath)))
        let document = try #require(object as? [String: Any], "\(relativePath) is not a JSON object")
        return try #require(document["value"] as? [[String: Any]], "\(relativePath) has no value array")
    }
}

/// Where the built `graph-ics` executable is.
enum GraphICSBinary {
    /// The first existing executable named `graph-ics` in the products folder of the running tests.
    ///
    /// `swift test` and `swift test --sanitize=address` build into different folders
    /// (`.build/debug`, `.build/x86_64-unknown-linux-gnu/debug`, …); the test executable sits in the same
    /// folder as the `graph-ics` built with it, so look next to the test bundle first, then fall back to
    /// `.build/debug`. `GRAPH_ICS_BINARY` overrides the search.
    static let url: URL? = {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["GRAPH_ICS_BINARY"] {
            candidates.append(URL(fileURLWithPath: override))
        }
        // Linux: .build/<triple>/debug/graph-icsPackageTests.xctest (a file); macOS: …/X.xctest/Contents/MacOS/X.
        var bundleFolders: [URL] = []
        for start in [URL(fileURLWithPath: CommandLine.arguments[0]), Bundle.main.bundleURL]
            + Bundle.allBundles.map(\.bundleURL)
        {
            var url = start.resolvingSymlinksInPath()
            while url.path != "/" {
                if url.pathExtension == "xctest" {
                    bundleFolders.append(url.deletingLastPathComponent())
                    break
                }
                url.deleteLastPathComponent()
            }
        }
        candidates += bundleFolders.map { $0.appendingPathComponent("graph-ics") }
        let executableFolder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        candidates.append(executableFolder.appendingPathComponent("graph-ics"))
        candidates.append(Package.root.appendingPathComponent(".build/debug/graph-ics"))
        return candidates.first { candidate in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory)
                && !isDirectory.boolValue && FileManager.default.isExecutableFile(atPath: candidate.path)
        }
    }()
}

/// What one run of `graph-ics` left behind.
struct ProcessResult: Sendable {
    var status: Int32
    var stdout: Data
    var stderr: Data

    var out: String { String(decoding: stdout, as: UTF8.self) }
    var err: String { String(decoding: stderr, as: UTF8.self) }
    /// The lines of stderr, without their line ends.
    var errLines: [String] { err.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
}

/// A child that did not finish in time; it has been killed.
struct ProcessTimedOut: Error, CustomStringConvertible {
    var arguments: [String]
    var seconds: Double
    var description: String { "graph-ics \(arguments.joined(separator: " ")) did not finish in \(seconds) s" }
}

/// What the child reads on standard input.
enum StandardInput {
    /// `/dev/null`: a command that reads stdin sees an empty input at once and never hangs.
    case null
    /// These bytes, written through a pipe (like `curl … | graph-ics convert -`).
    case pipe(Data)
}

/// Seconds a run may take: generous for sanitizer builds on a busy machine; `GRAPH_ICS_TEST_TIMEOUT` overrides.
let defaultTimeout: Double = ProcessInfo.processInfo.environment["GRAPH_ICS_TEST_TIMEOUT"].flatMap(Double.init) ?? 120

/// The environment a `graph-ics` child runs with: the test process's own without any `GRAPH_ICS_*` (a
/// developer's own sign-in or Graph settings must never leak into a test run), `NO_COLOR=1`, then `extra`.
func graphICSEnvironment(_ extra: [String: String]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment.filter {
        !$0.key.hasPrefix("GRAPH_ICS_") || $0.key == "GRAPH_ICS_BINARY"
    }
    environment["NO_COLOR"] = "1"
    environment.merge(extra) { _, new in new }
    return environment
}

/// The built `graph-ics`, or a failed requirement naming where it was looked for.
func graphICSPath() throws -> String {
    try #require(
        GraphICSBinary.url,
        "no graph-ics executable next to the test bundle (\(CommandLine.arguments[0])); run swift build first"
    ).path
}

/// Runs the built `graph-ics` with `arguments` and collects its exit status, stdout and stderr.
///
/// A child that takes longer than `timeout` is killed and the call throws.
func graphICS(
    _ arguments: [String],
    stdin: StandardInput = .null,
    in directory: URL? = nil,
    environment extra: [String: String] = [:],
    timeout: Double = defaultTimeout
) throws -> ProcessResult {
    let input: ChildProcess.Input
    switch stdin {
    case .null: input = .null
    case .pipe(let data): input = .bytes(data)
    }
    let child = try ChildProcess(
        try graphICSPath(), arguments, environment: graphICSEnvironment(extra), directory: directory?.path,
        stdin: input)
    let exit: ChildExit
    do {
        exit = try child.wait(timeout: timeout)
    } catch let error as ChildProcessError where error.timedOut {
        throw ProcessTimedOut(arguments: arguments, seconds: timeout)
    }
    #expect(exit.signal == nil, "graph-ics died from signal \(exit.signal ?? 0)")
    return ProcessResult(status: exit.status ?? exit.signal ?? 0, stdout: exit.stdout, stderr: exit.stderr)
}

/// Runs `body` with a new empty folder under the system's temporary folder, removed afterwards.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("graph-ics-tests-" + UUID().uuidString, isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer {
        // A test may have made the folder read-only; make it writable again so it can go.
        chmod(directory.path, 0o755)
        try? FileManager.default.removeItem(at: directory)
    }
    return try body(directory)
}

/// iCalendar text as the tests read it.
enum ICalendarText {
    /// Content lines with folds undone (CRLF followed by a space or tab).
    static func unfoldedLines(_ text: String) -> [String] {
        ICalendarLines.unfolded(text)
    }

    /// The VEVENTs, each as its own unfolded lines (lines of nested components such as VALARM left out).
    static func events(_ text: String) -> [Event] {
        var result: [Event] = []
        var current: [String]?
        var depth = 0
        for line in unfoldedLines(text) {
            if line == "BEGIN:VEVENT" {
                current = []
                depth = 1
            } else if line == "END:VEVENT", let lines = current {
                result.append(Event(lines: lines))
                current = nil
                depth = 0
            } else if current != nil, line.hasPrefix("BEGIN:") {
                depth += 1
            } else if current != nil, line.hasPrefix("END:") {
                depth -= 1
            } else if depth == 1 {
                current?.append(line)
            }
        }
        return result
    }

    /// The text with every `DTSTAMP:` line (the time of the conversion) replaced by a fixed one.
    static func normalisingTimestamps(_ text: String) -> String {
        ICalendarLines.normalisingTimestamps(text)
    }

    /// One VEVENT's properties.
    struct Event {
        var lines: [String]

        /// The whole first line of property `name` (`DTSTART;TZID=Europe/Berlin:20261214T100000`).
        func line(_ name: String) -> String? {
            lines.first { line in
                guard line.hasPrefix(name) else { return false }
                let next = line.dropFirst(name.count).first
                return next == ":" || next == ";"
            }
        }

        /// The value of property `name` (after the first colon).
        func value(_ name: String) -> String? {
            guard let line = line(name), let colon = line.firstIndex(of: ":") else { return nil }
            return String(line[line.index(after: colon)...])
        }

        /// The Graph event id graph-ics keeps in `X-GRAPH-ICS-EVENT-ID`.
        var graphID: String? { value("X-GRAPH-ICS-EVENT-ID") }
    }
}

/// Date-time values as iCalendar writes them, computed with Foundation's own time zone data.
enum ICalTime {
    /// Reads Graph's `2026-10-25T00:30:00.0000000` (given in `timeZone: "UTC"`).
    static func graphUTC(_ text: String) throws -> Date {
        let digits = text.prefix(19).split(whereSeparator: { "-T:".contains($0) }).compactMap { Int($0) }
        try #require(digits.count == 6, "'\(text)' is not a Graph dateTime")
        var components = DateComponents()
        (components.year, components.month, components.day) = (digits[0], digits[1], digits[2])
        (components.hour, components.minute, components.second) = (digits[3], digits[4], digits[5])
        return try #require(calendar(utc).date(from: components))
    }

    /// `20261025T003000Z`.
    static func utc(_ date: Date) -> String {
        stamp(date, in: utc) + "Z"
    }

    /// `20261025T023000`, the wall-clock time in `zone`.
    static func local(_ date: Date, in zone: TimeZone) -> String {
        stamp(date, in: zone)
    }

    /// Whether the wall-clock time of `date` in `zone` occurs twice (the repeated hour when clocks go back).
    static func isInFold(_ date: Date, in zone: TimeZone) -> Bool {
        let offset = zone.secondsFromGMT(for: date)
        for hours in -3...3 {
            let other = zone.secondsFromGMT(for: date.addingTimeInterval(Double(hours) * 3600))
            guard other != offset else { continue }
            let twin = date.addingTimeInterval(Double(offset - other))
            if twin != date, zone.secondsFromGMT(for: twin) == other { return true }
        }
        return false
    }

    private static let utc = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current

    private static func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    private static func stamp(_ date: Date, in zone: TimeZone) -> String {
        let parts = calendar(zone).dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func pad(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return pad(parts.year, 4) + pad(parts.month, 2) + pad(parts.day, 2) + "T" + pad(parts.hour, 2)
            + pad(parts.minute, 2) + pad(parts.second, 2)
    }
}
