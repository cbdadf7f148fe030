internal import CLibical
import Foundation

/// A zone known only from a VTIMEZONE inside the imported file (an Outlook custom zone, a made-up TZID):
/// libical reads its rules, so local times convert exactly even when no IANA zone has the same rules.
///
/// Owns an `icaltimezone` built from a clone of the component (`icaltimezone_set_component` takes the
/// clone) and frees it in `deinit`. Calls into libical's zone code hold ``ICalZone/lock``.
final class FileTimeZone: @unchecked Sendable {
    let text: String
    private let zone: OpaquePointer

    /// Nil when the text is not a VTIMEZONE libical can use.
    init?(vtimezone text: String) {
        guard let root = ICalComponent.parse(text) else { return nil }
        let component: OpaquePointer? =
            icalcomponent_isa(root.pointer) == ICAL_VTIMEZONE_COMPONENT
            ? root.pointer : ICalComponent.children(of: root.pointer, ICAL_VTIMEZONE_COMPONENT).first
        guard let component else { return nil }
        ICalZone.lock.lock()
        defer { ICalZone.lock.unlock() }
        guard let zone = icaltimezone_new() else { return nil }
        guard let clone = icalcomponent_new_clone(component) else {
            icaltimezone_free(zone, 1)
            return nil
        }
        guard icaltimezone_set_component(zone, clone) != 0 else {
            icalcomponent_free(clone)
            icaltimezone_free(zone, 1)
            return nil
        }
        self.text = text
        self.zone = zone
    }

    deinit {
        ICalZone.lock.lock()
        icaltimezone_free(zone, 1)
        ICalZone.lock.unlock()
    }

    /// Seconds to add to UTC to get local time at `instant`, by the file's rules.
    func utcOffset(at instant: Int64) -> Int {
        var time = icaltimetype.make(CivilDateTime(secondsSinceEpoch: instant))
        var isDaylight: Int32 = 0
        ICalZone.lock.lock()
        defer { ICalZone.lock.unlock() }
        return Int(icaltimezone_get_utc_offset_of_utc_time(zone, &time, &isDaylight))
    }

    func localTime(at instant: Int64) -> CivilDateTime {
        CivilDateTime(secondsSinceEpoch: instant + Int64(utcOffset(at: instant)))
    }

    /// The instant of a wall-clock time: the earlier one in a fold, shifted forward in a gap.
    func instant(forLocal local: CivilDateTime) -> Int64 {
        let asUTC = local.secondsSinceEpoch
        var offsets: [Int] = []
        for hours in stride(from: -26, through: 26, by: 2) {
            let offset = utcOffset(at: asUTC + Int64(hours) * 3600)
            if !offsets.contains(offset) { offsets.append(offset) }
        }
        let candidates = offsets.map { asUTC - Int64($0) }.filter { utcOffset(at: $0) == Int(asUTC - $0) }.sorted()
        if let first = candidates.first { return first }
        return asUTC - Int64(utcOffset(at: asUTC - 86_400))
    }

    /// The IANA zone whose rules agree with the file's over `year` (see ``VTimezoneMatcher``).
    func matchingIANAZone(year: Int) -> String? {
        VTimezoneMatcher.ianaZone(matching: text, year: year)
    }
}
