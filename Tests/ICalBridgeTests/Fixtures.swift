import Foundation
import TestSupport
import Testing

@testable import ICalBridge

/// The project's `fixtures/` folder, found by walking up from this file.
enum Fixtures {
    static var root: URL { PackageRoot.fixtures }

    /// Base names of the Graph JSON fixtures that have golden `.ics` partners.
    static var graphNames: [String] {
        let folder = root.appendingPathComponent("graph")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(relativePath))
    }

    /// Converts Graph JSON with a fixed DTSTAMP; returns the text and the summary.
    static func convert(
        _ data: Data,
        file: String = "test.json",
        zone: ResolvedZone? = nil
    ) throws -> (text: String, summary: GraphToICS.Summary) {
        var buffer = ByteBuffer()
        let summary = try GraphToICS.convert(
            data,
            options: ExportOptions(fallbackZone: zone, timestamp: 1_796_083_200, file: file),
            into: &buffer
        )
        return (String(decoding: buffer.bytes, as: UTF8.self), summary)
    }

    /// Unfolded content lines of an iCalendar text.
    static func lines(_ text: String) -> [String] {
        ICalendarLines.unfolded(text)
    }

    /// The VEVENT blocks, each as its unfolded lines.
    static func events(_ text: String) -> [[String]] {
        var result: [[String]] = []
        var current: [String]?
        for line in lines(text) {
            if line == "BEGIN:VEVENT" {
                current = []
            } else if line == "END:VEVENT", let event = current {
                result.append(event)
                current = nil
            } else if current != nil, !line.hasPrefix(" ") {
                current?.append(line)
            }
        }
        return result
    }

    /// The first value of `name` (with any parameters) in an event's lines.
    static func value(_ name: String, in event: [String]) -> String? {
        for line in event where line.hasPrefix(name + ":") || line.hasPrefix(name + ";") {
            return String(line[line.index(after: line.firstIndex(of: ":") ?? line.startIndex)...])
        }
        return nil
    }

    static func line(_ name: String, in event: [String]) -> String? {
        event.first { $0.hasPrefix(name + ":") || $0.hasPrefix(name + ";") }
    }

    /// Replaces the value of every DTSTAMP line, so that goldens do not depend on the clock.
    static func normalisingTimestamps(_ text: String) -> String {
        ICalendarLines.normalisingTimestamps(text)
    }
}
