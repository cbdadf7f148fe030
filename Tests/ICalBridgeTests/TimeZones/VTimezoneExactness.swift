import Foundation
import Testing

@testable import ICalBridge

/// Whether a VTIMEZONE graph-ics wrote is right, judged by what it means rather than by its form: the
/// offsets its own rules give (libical reading the text, as for a zone embedded in a file) against the
/// offsets of the system's TZif file for the same zone, read without libical (``TZifZone``). Which form
/// libical or graph-ics's replacement chose, and so which tzdata release is installed, does not matter.
enum VTimezoneExactness {
    /// The offset at `from` and every change of offset in `(from, to]`, found by stepping an hour at a
    /// time and bisecting to the second.
    static func changes(from: Int64, to: Int64, offset: (Int64) -> Int) -> [(instant: Int64, offset: Int)] {
        var previous = offset(from)
        var result = [(instant: from, offset: previous)]
        var time = from
        while time < to {
            let next = min(time + 3600, to)
            if offset(next) == previous {
                time = next
                continue
            }
            var low = time
            var high = next
            while high - low > 1 {
                let middle = low + (high - low) / 2
                if offset(middle) == previous { low = middle } else { high = middle }
            }
            previous = offset(high)
            result.append((high, previous))
            time = high
        }
        return result
    }

    /// The differences between the VTIMEZONE `text` and the system's zone `name` over `[from, to]`, one
    /// sentence each; empty when every offset agrees.
    static func mismatches(_ text: String, zone name: String, from: Int64, to: Int64) -> [String] {
        guard let tzif = TZifZone(path: TZData.system.directory + "/" + name) else {
            return ["\(name): no TZif file in \(TZData.system.directory)"]
        }
        guard let written = VTimezoneMatcher.offsets(of: text, from: from, to: to) else {
            return ["\(name): the VTIMEZONE cannot be read back"]
        }
        let system = changes(from: from, to: to, offset: tzif.offset(at:))
        func describe(_ list: [(instant: Int64, offset: Int)]) -> String {
            list.map { "\(CivilDateTime(secondsSinceEpoch: $0.instant))Z→\($0.offset)" }.joined(separator: ", ")
        }
        guard written.map(\.instant) == system.map(\.instant), written.map(\.offset) == system.map(\.offset) else {
            return ["\(name): the VTIMEZONE gives [\(describe(written))], tzdata [\(describe(system))]"]
        }
        return []
    }

    /// The VTIMEZONE as vobject and dateutil's `tzical` read it: they compare an RRULE's UTC `UNTIL` with
    /// the rule's local onsets as if it were local time. The text returned moves each UNTIL by the
    /// observance's TZOFFSETFROM, so that a reader that gets UNTIL right (libical) reads it the way they do.
    static func readingUntilAsLocal(_ text: String) -> String {
        var offsetFrom = 0
        var lines: [String] = []
        for line in Fixtures.lines(text) {
            if line.hasPrefix("TZOFFSETFROM:") { offsetFrom = seconds(ofOffset: line.dropFirst(13)) }
            guard line.hasPrefix("RRULE:"), let range = line.range(of: "UNTIL=") else {
                lines.append(line)
                continue
            }
            let value = line[range.upperBound...].prefix { $0 != ";" }
            guard value.hasSuffix("Z"), let until = GraphTimestamp.parse(basic(value))?.instant else {
                lines.append(line)
                continue
            }
            let moved = CivilDateTime(secondsSinceEpoch: until - Int64(offsetFrom))
            lines.append(line.replacingOccurrences(of: "UNTIL=" + value, with: "UNTIL=" + OpenRules.stamp(moved) + "Z"))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// `+0100` or `-033000` in seconds east of UTC.
    static func seconds(ofOffset text: Substring) -> Int {
        let digits = text.dropFirst().compactMap(\.wholeNumberValue)
        guard digits.count >= 4 else { return 0 }
        let value =
            (digits[0] * 10 + digits[1]) * 3600 + (digits[2] * 10 + digits[3]) * 60
            + (digits.count >= 6 ? digits[4] * 10 + digits[5] : 0)
        return text.hasPrefix("-") ? -value : value
    }

    /// Every VTIMEZONE of an iCalendar text with its TZID, as unfolded lines joined with CRLF.
    static func vtimezones(in text: String) -> [(tzid: String, text: String)] {
        var result: [(tzid: String, text: String)] = []
        var current: [String]?
        for line in Fixtures.lines(text) {
            if line == "BEGIN:VTIMEZONE" { current = [] }
            current?.append(line)
            if line == "END:VTIMEZONE", let block = current {
                let tzid = block.first { $0.hasPrefix("TZID:") }.map { String($0.dropFirst(5)) } ?? ""
                result.append((tzid, block.joined(separator: "\r\n") + "\r\n"))
                current = nil
            }
        }
        return result
    }

    /// The text with each VTIMEZONE cut down to its TZID, so that a comparison with a golden file does not
    /// depend on the form libical gives a zone under the installed tzdata.
    static func normalisingVTimezones(_ text: String) -> String {
        var kept: [Substring] = []
        var inside = false
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: false) {
            if line == "BEGIN:VTIMEZONE" {
                inside = true
                kept.append(line)
            } else if line == "END:VTIMEZONE" {
                inside = false
                kept.append(line)
            } else if !inside || line.hasPrefix("TZID:") {
                kept.append(line)
            }
        }
        return kept.joined(separator: "\r\n")
    }

    /// The span of instants the events of an iCalendar text use in zone `tzid`: from the earliest of its
    /// local date-times (DTSTART, DTEND, RECURRENCE-ID, EXDATE with that TZID) to the latest, or to the
    /// UNTIL of a series' RRULE when that is later, or ten years on for a series without end (graph-ics
    /// writes the changes of ten years exactly, then leaves the rules open). Local times become instants
    /// with the system zone's offset. After the span the VTIMEZONE's open rules may differ from tzdata
    /// (a zone that drops DST later): no event needs them.
    static func span(of text: String, tzid: String, vtimezone: String) -> (from: Int64, to: Int64)? {
        guard let tzif = TZifZone(path: TZData.system.directory + "/" + tzid) else { return nil }
        var stamps: [Int64] = []
        // The series' ends (-1: without end) of the events whose DTSTART is in this zone.
        var seriesEnds: [Int64] = []
        var seriesEnd: Int64?
        var startsInZone = false
        for line in Fixtures.lines(text) {
            if line == "BEGIN:VEVENT" { (seriesEnd, startsInZone) = (nil, false) }
            if line.hasPrefix("DTSTART;TZID=" + tzid + ":") { startsInZone = true }
            if line == "END:VEVENT", startsInZone, let end = seriesEnd { seriesEnds.append(end) }
            if line.hasPrefix("RRULE:") {
                let parts = line.dropFirst(6).split(separator: ";")
                if let until = parts.first(where: { $0.hasPrefix("UNTIL=") }) {
                    seriesEnd = GraphTimestamp.parse(basic(until.dropFirst(6)))?.instant
                } else if !parts.contains(where: { $0.hasPrefix("COUNT=") }) {
                    seriesEnd = -1
                }
            }
            guard
                ["DTSTART", "DTEND", "RECURRENCE-ID", "EXDATE"].contains(where: {
                    line.hasPrefix($0 + ";TZID=" + tzid + ":") || line.hasPrefix($0 + ";TZID=" + tzid + ";")
                })
            else { continue }
            let value = line[line.index(after: line.lastIndex(of: ":") ?? line.startIndex)...]
            for item in value.split(separator: ",") {
                guard let local = GraphTimestamp.parse(basic(item))?.instant else { continue }
                stamps.append(local - Int64(tzif.offset(at: local)))
            }
        }
        guard let from = stamps.min(), var to = stamps.max() else { return nil }
        for end in seriesEnds { to = max(to, end < 0 ? to + 10 * 365 * 86_400 : end) }
        return (from, to)
    }

    /// `20261201T090000` (or with `Z`) as Graph's `2026-12-01T09:00:00Z`.
    static func basic(_ text: Substring) -> String {
        let digits = Array(text.prefix(15))
        guard digits.count == 15 else { return String(text) }
        let d = String(digits)
        func part(_ from: Int, _ length: Int) -> Substring {
            let start = d.index(d.startIndex, offsetBy: from)
            return d[start..<d.index(start, offsetBy: length)]
        }
        return "\(part(0, 4))-\(part(4, 2))-\(part(6, 2))T\(part(9, 2)):\(part(11, 2)):\(part(13, 2))Z"
    }
}
