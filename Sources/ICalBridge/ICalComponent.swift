internal import CLibical
import Foundation

/// An owning reference to a libical component tree (`icalcomponent *`).
///
/// Only roots own memory: an `ICalComponent` owns what `icalcomponent_new`, `icalcomponent_new_clone` or
/// the parser returned and frees it with `icalcomponent_free` in `deinit`. Children added with
/// ``adopt(_:)`` belong to the parent from then on. Not thread-safe: use one instance from one task.
final class ICalComponent {
    /// The libical component; valid as long as `self` is alive.
    let pointer: OpaquePointer
    private var owned = true

    /// `icalcomponent_new(kind)`.
    init(kind: icalcomponent_kind) throws(ICalBridgeError) {
        guard let pointer = icalcomponent_new(kind) else {
            throw ICalBridgeError(.libical, "libical could not create a component (out of memory)")
        }
        self.pointer = pointer
    }

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
        if owned { icalcomponent_free(pointer) }
    }

    /// `icalcomponent_add_component`: `child` moves into this tree and no longer frees itself.
    func adopt(_ child: ICalComponent) {
        icalcomponent_add_component(pointer, child.pointer)
        child.owned = false
    }

    /// `icalcomponent_add_property`: the property belongs to this component from then on.
    func add(_ property: OpaquePointer?) {
        guard let property else { return }
        icalcomponent_add_property(pointer, property)
    }

    /// `icalcomponent_as_ical_string_r`, re-folded by graph-ics (libical 3.0 can split a line between
    /// CR and LF and count characters instead of octets; see ``ICalText/refold(_:)``).
    ///
    /// - Parameter extraLines: unfolded content lines graph-ics wrote itself, inserted before the final
    ///   `END:` line (properties libical cannot write correctly, see ``ICalText/escaped(_:)``).
    func serialized(extraLines: [String] = []) throws(ICalBridgeError) -> [UInt8] {
        guard let text = icalcomponent_as_ical_string_r(pointer) else {
            throw ICalBridgeError(.libical, "libical could not serialise a component")
        }
        defer { free(text) }
        let length = strlen(text)
        return text.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
            let buffer = UnsafeBufferPointer(start: bytes, count: length)
            guard !extraLines.isEmpty else { return ICalText.refold(buffer) }
            // Properties go before the first subcomponent (RFC 5545's grammar), else before the END line.
            var all = Array(buffer)
            while let last = all.last, last == 0x0D || last == 0x0A { all.removeLast() }
            let subcomponent = Array("\nBEGIN:".utf8)
            let firstChild = all.indices.dropFirst().first { all[$0...].starts(with: subcomponent) }
            let endStart = firstChild.map { $0 + 1 } ?? (all.lastIndex(of: 0x0A).map { $0 + 1 }) ?? 0
            var extra: [UInt8] = []
            for line in extraLines { extra += Array(line.utf8) + [0x0D, 0x0A] }
            all.insert(contentsOf: extra, at: endStart)
            all += [0x0D, 0x0A]
            return all.withUnsafeBufferPointer { ICalText.refold($0) }
        }
    }
}

/// Builders for the properties and parameters graph-ics writes. Each returns a new `icalproperty *` that
/// the caller hands to ``ICalComponent/add(_:)`` at once (which takes ownership).
enum ICalProperty {
    /// A TEXT property (`SUMMARY`, `DESCRIPTION`, …); libical escapes `,;\` and newlines.
    static func text(_ make: (UnsafePointer<CChar>?) -> OpaquePointer?, _ value: String) -> OpaquePointer? {
        ICalText.sanitized(value).withCString { make($0) }
    }

    /// An `X-` property whose value is TEXT and is escaped like any text.
    static func xText(_ name: String, _ value: String) -> OpaquePointer? {
        guard let property = icalproperty_new(ICAL_X_PROPERTY) else { return nil }
        icalproperty_set_x_name(property, name)
        let text = ICalText.sanitized(value).withCString { icalvalue_new_text($0) }
        if let text {
            icalproperty_set_value(property, text)
        }
        return property
    }

    /// An `X-` property with a plain token value (ids, URLs); control characters are removed so the value
    /// can never end the line.
    static func xToken(_ name: String, _ value: String) -> OpaquePointer? {
        let clean = ICalText.singleLine(value)
        guard let property = clean.withCString({ icalproperty_new_x($0) }) else { return nil }
        icalproperty_set_x_name(property, name)
        return property
    }

    static func addParameter(_ property: OpaquePointer?, _ parameter: OpaquePointer?) {
        guard let property, let parameter else { return }
        icalproperty_add_parameter(property, parameter)
    }

    /// A parameter text value: one line, and no `"` (which cannot be escaped in iCalendar 2.0 without
    /// RFC 6868, which not every reader knows).
    static func parameterText(_ value: String) -> String {
        ICalText.singleLine(value).replacing("\"", with: "'")
    }

    /// An X parameter (`X-NAME=value`).
    static func xParameter(_ name: String, _ value: String) -> OpaquePointer? {
        guard let parameter = parameterText(value).withCString({ icalparameter_new_x($0) }) else { return nil }
        icalparameter_set_xname(parameter, name)
        return parameter
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

    var civil: CivilDateTime {
        CivilDateTime(
            year: Int(year),
            month: Int(month),
            day: Int(day),
            hour: Int(hour),
            minute: Int(minute),
            second: Int(second)
        )
    }
}
