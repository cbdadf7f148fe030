import Foundation

/// A zone known only from a VTIMEZONE inside the imported file (an Outlook custom zone, a made-up TZID):
/// libical reads its rules (through ``EmbeddedZone``, which refuses VTIMEZONEs that would make libical
/// hang or misread them), so local times convert exactly even when no IANA zone has the same rules.
/// Not thread-safe: one decoder uses it.
final class FileTimeZone {
    let text: String
    private let zone: EmbeddedZone
    /// The span the VTIMEZONE describes, as far as it says (``describedSpan(of:)``).
    let described: (from: Int64?, to: Int64?)

    /// Nil when the text is not a VTIMEZONE graph-ics can use for times up to `lastYear`.
    init?(vtimezone text: String, throughYear lastYear: Int) {
        guard let zone = EmbeddedZone(text: text, throughYear: min(max(lastYear, 1900), 2198)) else { return nil }
        self.text = text
        self.zone = zone
        self.described = Self.describedSpan(of: text)
    }

    /// From the first onset of its STANDARD and DAYLIGHT parts (before it the VTIMEZONE gives no offset), to
    /// RFC 7808's `TZUNTIL` (which graph-ics's export writes on the zones it truncates to the events' dates),
    /// or to a day before the last onset when the parts are only a list of changes (DTSTARTs and RDATEs, one
    /// or more) without an RRULE: Apple's iCal and python-icalendar write the changes around their events
    /// that way, the last one then held forever. Nil where it is open. Onsets are read as UTC, a few hours
    /// off, which is why the ends are a day inside.
    static func describedSpan(of text: String) -> (from: Int64?, to: Int64?) {
        var onsets: [Int64] = []
        var repeats = false
        var until: Int64?
        var inPart = false
        for line in unfoldedLines(text) {
            let upper = line.uppercased()
            if upper == "BEGIN:STANDARD" || upper == "BEGIN:DAYLIGHT" { inPart = true }
            if upper == "END:STANDARD" || upper == "END:DAYLIGHT" { inPart = false }
            if upper.hasPrefix("TZUNTIL") { until = dateTimeValue(line) }
            guard inPart else { continue }
            if upper.hasPrefix("RRULE") { repeats = true }
            if upper.hasPrefix("DTSTART"), let onset = dateTimeValue(line) { onsets.append(onset) }
            if upper.hasPrefix("RDATE"), let colon = line.lastIndex(of: ":") {
                // `RDATE:20231105T020000,…` or periods `…/…`: each value's start.
                for value in line[line.index(after: colon)...].split(separator: ",") {
                    if let onset = dateTimeValue(Substring(":" + (value.split(separator: "/").first ?? ""))) {
                        onsets.append(onset)
                    }
                }
            }
        }
        let from = onsets.min().map { $0 + 86_400 }
        if let until { return (from, until) }
        guard !repeats, let last = onsets.max() else { return (from, nil) }
        return (from, last - 86_400)
    }

    /// The content lines of `text`, unfolded (RFC 5545 §3.1), without their line ends.
    static func unfoldedLines(_ text: String) -> [Substring] {
        var lines: [Substring] = []
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            if let first = line.first, first == " " || first == "\t", !lines.isEmpty {
                lines[lines.count - 1] = Substring(lines[lines.count - 1] + line.dropFirst())
            } else {
                lines.append(line)
            }
        }
        return lines
    }

    /// The date-time after the last colon of a content line (`…:20270131T000000Z`, or a date's midnight),
    /// read as UTC.
    static func dateTimeValue(_ line: Substring) -> Int64? {
        guard let colon = line.lastIndex(of: ":") else { return nil }
        let digits = line[line.index(after: colon)...].utf8.filter { $0 >= 0x30 && $0 <= 0x39 }.map { Int($0) - 0x30 }
        guard digits.count == 8 || digits.count == 14 else { return nil }
        func number(_ range: Range<Int>) -> Int { digits[range].reduce(0) { $0 * 10 + $1 } }
        let time = digits.count == 14
        let civil = CivilDateTime(
            year: number(0..<4), month: number(4..<6), day: number(6..<8), hour: time ? number(8..<10) : 0,
            minute: time ? number(10..<12) : 0, second: time ? number(12..<14) : 0)
        return civil.isValid ? civil.secondsSinceEpoch : nil
    }

    /// Seconds to add to UTC to get local time at `instant`, by the file's rules.
    func utcOffset(at instant: Int64) -> Int {
        zone.offsets(at: [instant]).first ?? 0
    }

    /// The instants in `(from, to]` at which the file's rules change the offset.
    func offsetChanges(from: Int64, to: Int64) -> [Int64] {
        zone.changes(from: from, to: to).dropFirst().map(\.instant)
    }

    /// The instant of a wall-clock time: the earlier one in a fold, shifted forward in a gap.
    func instant(forLocal local: CivilDateTime) -> Int64 {
        WallClock.instant(forLocal: local, utcOffset: utcOffset(at:))
    }

    /// The IANA zone whose rules agree with the file's over `year` (see ``VTimezoneMatcher``).
    func matchingIANAZone(year: Int) -> String? {
        VTimezoneMatcher.ianaZone(matching: text, year: year)
    }
}
