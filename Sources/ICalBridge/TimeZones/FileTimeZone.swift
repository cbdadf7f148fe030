import Foundation

/// A zone known only from a VTIMEZONE inside the imported file (an Outlook custom zone, a made-up TZID):
/// libical reads its rules (through ``EmbeddedZone``, which refuses VTIMEZONEs that would make libical
/// hang or misread them), so local times convert exactly even when no IANA zone has the same rules.
/// Not thread-safe: one decoder uses it.
final class FileTimeZone {
    let text: String
    private let zone: EmbeddedZone

    /// Nil when the text is not a VTIMEZONE graph-ics can use for times up to `lastYear`.
    init?(vtimezone text: String, throughYear lastYear: Int) {
        guard let zone = EmbeddedZone(text: text, throughYear: min(max(lastYear, 1900), 2198)) else { return nil }
        self.text = text
        self.zone = zone
    }

    /// Seconds to add to UTC to get local time at `instant`, by the file's rules.
    func utcOffset(at instant: Int64) -> Int {
        zone.offsets(at: [instant]).first ?? 0
    }

    func localTime(at instant: Int64) -> CivilDateTime {
        CivilDateTime(secondsSinceEpoch: instant + Int64(utcOffset(at: instant)))
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
