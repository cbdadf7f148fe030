internal import CLibical
import Foundation

/// An owning reference to a libical component tree (`icalcomponent *`).
///
/// An `ICalComponent` owns a root that `icalcomponent_new_clone` or the parser returned and frees it with
/// `icalcomponent_free` in `deinit`; the components inside it are borrowed from it. Not thread-safe: use
/// one instance from one task.
final class ICalComponent {
    /// The libical component; valid as long as `self` is alive.
    let pointer: OpaquePointer

    /// Takes ownership of a root that libical returned (the parser, `_new_clone`).
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// `icalcomponent_new_clone(other)`: a deep copy that this object owns, for example of a built-in
    /// zone's VTIMEZONE, which libical keeps for itself and must never be added to another tree.
    init(cloning other: OpaquePointer) throws(ICalBridgeError) {
        guard let pointer = icalcomponent_new_clone(other) else {
            throw ICalBridgeError(.libical, "libical could not copy a component (out of memory)")
        }
        self.pointer = pointer
    }

    deinit {
        icalcomponent_free(pointer)
    }

    /// `icalcomponent_as_ical_string_r`, re-folded by graph-ics (libical 3.0 can split a line between
    /// CR and LF and count characters instead of octets; see ``ICalText/refold(_:)``).
    func serialized() throws(ICalBridgeError) -> [UInt8] {
        guard let text = icalcomponent_as_ical_string_r(pointer) else {
            throw ICalBridgeError(.libical, "libical could not serialise a component")
        }
        defer { free(text) }
        let length = strlen(text)
        return text.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
            ICalText.refold(UnsafeBufferPointer(start: bytes, count: length))
        }
    }
}

extension icaltimetype {
    /// A libical date-time from a civil time: floating (no zone) unless `utc` is set.
    static func make(_ civil: CivilDateTime, utc: Bool = false, isDate: Bool = false) -> icaltimetype {
        var time = icaltime_null_time()
        time.year = Int32(civil.year)
        time.month = Int32(civil.month)
        time.day = Int32(civil.day)
        if !isDate {
            time.hour = Int32(civil.hour)
            time.minute = Int32(civil.minute)
            time.second = Int32(civil.second)
        }
        time.is_date = isDate ? 1 : 0
        if utc {
            time.zone = icaltimezone_get_utc_timezone()
        }
        return time
    }
}
