import Foundation
import Synchronization

/// Helpers that several test targets share: where the package is, iCalendar text as tests compare it, a
/// value handed between threads. No test framework here, so that any target can use it.
public enum PackageRoot {
    /// The folder holding `Package.swift` and `fixtures/`, found by walking up from this file.
    public static let url: URL = {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path),
                FileManager.default.fileExists(atPath: directory.appendingPathComponent("fixtures").path)
            {
                return directory
            }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// `fixtures/`.
    public static var fixtures: URL { url.appendingPathComponent("fixtures") }
}

/// iCalendar text as the tests compare it.
public enum ICalendarLines {
    /// The text with every `DTSTAMP:` line (the time of the conversion) replaced by a fixed one, so that a
    /// comparison with a golden file does not depend on the clock.
    public static func normalisingTimestamps(_ text: String) -> String {
        text.split(separator: "\r\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("DTSTAMP:") ? "DTSTAMP:<normalised>" : String($0) }
            .joined(separator: "\r\n")
    }

    /// Content lines with folds undone (CRLF followed by a space or tab), empty lines left out.
    public static func unfolded(_ text: String) -> [String] {
        text.replacing("\r\n ", with: "").replacing("\r\n\t", with: "")
            .split(separator: "\r\n", omittingEmptySubsequences: true).map(String.init)
    }
}

/// A value handed between threads.
public final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    public init(_ value: Value) {
        storage = Mutex(value)
    }

    public var value: Value { storage.withLock { $0 } }

    public func set(_ value: Value) {
        storage.withLock { $0 = value }
    }

    public func mutate(_ body: (inout Value) -> Void) {
        storage.withLock { body(&$0) }
    }
}

/// What a program printed and how it ended.
public struct ProgramRun: Sendable {
    public var status: Int32
    public var out: String
    public var err: String
}

/// Runs `executable` with `arguments` and `input` on standard input (a ``ChildProcess``), killing it and
/// throwing when it takes longer than `timeout` seconds.
public func runProgram(
    _ executable: String, _ arguments: [String], input: String = "", timeout: Double = 600
) throws -> ProgramRun {
    let exit = try ChildProcess(executable, arguments, stdin: .bytes(Data(input.utf8))).wait(timeout: timeout)
    return ProgramRun(status: exit.status ?? exit.signal ?? 0, out: exit.out, err: exit.err)
}

/// Events to seed into a Graph stand-in, as its `addEvent` takes them (Graph's JSON as dictionaries).
public enum StandInSeeds {
    /// A yearly series on 10 January from 2020 to 2026, 08:00–09:00 UTC, of which only the occurrences of
    /// 2022–2024 are left (the others deleted): looking up its occurrences spans seven years, more than
    /// one read Graph accepts. The master's id is `anniversary`.
    public static func sevenYearSeriesWithThreeOccurrences() -> [[String: Any]] {
        func when(_ utc: String) -> [String: Any] { ["dateTime": utc, "timeZone": "UTC"] }
        let master: [String: Any] = [
            "id": "anniversary", "type": "seriesMaster", "subject": "Anniversary",
            "start": when("2020-01-10T08:00:00"), "end": when("2020-01-10T09:00:00"),
            "originalStartTimeZone": "UTC", "originalEndTimeZone": "UTC",
            "recurrence": [
                "pattern": ["type": "absoluteYearly", "interval": 1, "month": 1, "dayOfMonth": 10],
                "range": [
                    "type": "endDate", "startDate": "2020-01-10", "endDate": "2026-12-31", "recurrenceTimeZone": "UTC",
                ],
            ] as [String: Any],
        ]
        let occurrences: [[String: Any]] = (2022...2024).map { year in
            [
                "type": "occurrence", "seriesMasterId": "anniversary", "subject": "Anniversary",
                "originalStart": "\(year)-01-10T08:00:00Z", "start": when("\(year)-01-10T08:00:00"),
                "end": when("\(year)-01-10T09:00:00"),
            ]
        }
        return [master] + occurrences
    }
}

/// The contents of the file at `path`, nil when it cannot be opened. Reads through `FileHandle`:
/// Foundation's `Data(contentsOf:)`, `String(contentsOf:)` and `FileManager.contents(atPath:)` leak a
/// 4 KiB buffer for every empty file they read (Swift 6.3 on Linux), which fails the LeakSanitizer run of
/// the suite (scripts/test-sanitizers) wherever a test reads a file that may be empty.
public func fileContents(_ path: String) -> Data? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    return (try? handle.readToEnd()) ?? Data()
}

/// ``fileContents(_:)`` as UTF-8 text (invalid bytes replaced).
public func fileText(_ path: String) -> String? {
    fileContents(path).map { String(decoding: $0, as: UTF8.self) }
}

/// Wall-clock times and instants by the system's zone rules (Foundation's `TimeZone`, from the system's
/// tzdata), so that tests of time zones check graph-ics against rules it did not compute itself.
public enum SystemZoneRules {
    /// Seconds since 1970 of `local` (`2026-10-25T02:30`, seconds optional) read as if it were UTC; nil when
    /// the text is not such a time.
    public static func asUTC(_ local: String) -> Int64? {
        let parts = local.split { $0 == "-" || $0 == "T" || $0 == ":" }.compactMap { Int($0) }
        guard parts.count >= 5, let utc = TimeZone(identifier: "UTC") else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        let components = DateComponents(
            year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4],
            second: parts.count > 5 ? parts[5] : 0)
        return calendar.date(from: components).map { Int64($0.timeIntervalSince1970) }
    }

    /// The instants (seconds since 1970) whose wall-clock time in `zone` is `local`, earliest first: two in
    /// a fold, none in a gap. Every quarter hour within 16 hours either side is tried.
    public static func instants(_ local: String, in zone: String) -> [Int64] {
        guard let timeZone = TimeZone(identifier: zone), let asUTC = asUTC(local) else { return [] }
        return stride(from: asUTC - 16 * 3600, through: asUTC + 16 * 3600, by: 900).filter {
            $0 + Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval($0)))) == asUTC
        }
    }

    /// The instant RFC 5545 §3.3.5 gives `local` in `zone`: the first of a fold; in a gap, the time read with
    /// the offset in force before it (moved forward by the gap's length). Nil for an unknown zone or time.
    public static func rfcInstant(_ local: String, in zone: String) -> Int64? {
        if let first = instants(local, in: zone).first { return first }
        guard let timeZone = TimeZone(identifier: zone), let asUTC = asUTC(local) else { return nil }
        let before = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(asUTC - 86_400)))
        return asUTC - Int64(before)
    }

    /// `2026-10-25T00:30:00`, the UTC date and time of an instant.
    public static func utcText(_ instant: Int64) -> String {
        guard let utc = TimeZone(identifier: "UTC") else { return "" }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        let parts = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: TimeInterval(instant)))
        func pad(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return pad(parts.year, 4) + "-" + pad(parts.month, 2) + "-" + pad(parts.day, 2) + "T" + pad(parts.hour, 2)
            + ":" + pad(parts.minute, 2) + ":" + pad(parts.second, 2)
    }
}
