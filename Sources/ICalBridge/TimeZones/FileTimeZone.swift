import Foundation

/// A zone known only from a VTIMEZONE inside the imported file (an Outlook custom zone, a made-up TZID):
/// libical reads its rules (through ``EmbeddedZone``, which refuses VTIMEZONEs that would make libical
/// hang or misread them), so local times convert exactly even when no IANA zone has the same rules.
/// Not thread-safe: one decoder uses it.
final class FileTimeZone {
    let text: String
    private let zone: EmbeddedZone
    /// The instant up to which the VTIMEZONE describes its zone (RFC 7808's `TZUNTIL`, which graph-ics's export
    /// writes on the zones it truncates to the events' dates); nil when it gives none.
    let validUntil: Int64?

    /// Nil when the text is not a VTIMEZONE graph-ics can use for times up to `lastYear`.
    init?(vtimezone text: String, throughYear lastYear: Int) {
        guard let zone = EmbeddedZone(text: text, throughYear: min(max(lastYear, 1900), 2198)) else { return nil }
        self.text = text
        self.zone = zone
        self.validUntil = Self.tzuntil(in: text)
    }

    /// The UTC value of the first `TZUNTIL` line (`TZUNTIL:20270131T000000Z`; a date means its midnight).
    static func tzuntil(in text: String) -> Int64? {
        for line in text.split(whereSeparator: \.isNewline) where line.uppercased().hasPrefix("TZUNTIL") {
            guard let colon = line.lastIndex(of: ":") else { continue }
            let digits = Array(line[line.index(after: colon)...].filter(\.isNumber).utf8).map { Int($0) - 0x30 }
            guard digits.count == 8 || digits.count == 14 else { return nil }
            func number(_ range: Range<Int>) -> Int { digits[range].reduce(0) { $0 * 10 + $1 } }
            let civil = CivilDateTime(
                year: number(0..<4), month: number(4..<6), day: number(6..<8),
                hour: digits.count == 14 ? number(8..<10) : 0, minute: digits.count == 14 ? number(10..<12) : 0,
                second: digits.count == 14 ? number(12..<14) : 0)
            return civil.isValid ? civil.secondsSinceEpoch : nil
        }
        return nil
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
