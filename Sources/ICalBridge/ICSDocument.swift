internal import CLibical
import Foundation

/// An `.ics` input read by libical: its calendars, their METHOD, embedded VTIMEZONEs and VEVENTs, and what
/// went wrong while reading.
///
/// Reading never fails on bad content (libical inserts `X-LIC-ERROR` properties, which become
/// diagnostics); it fails only when the input holds no calendar data at all. Several VCALENDARs in one
/// stream, LF-only lines, folded lines and a UTF-8 byte order mark all work; input that is not UTF-8 is
/// read as Latin-1 with a warning. Not thread-safe.
final class ICSDocument {
    /// One VEVENT with where it came from.
    struct Event {
        let pointer: OpaquePointer
        /// The calendar's METHOD (`PUBLISH`, `REQUEST`, `CANCEL`, …), upper-cased; nil when absent.
        let method: String?
        /// VTIMEZONE text by TZID, of the calendar the event is in.
        let timezones: [String: String]
        /// 1-based line of the event's `BEGIN:VEVENT` in the input.
        let line: Int?
    }

    let file: String
    private(set) var events: [Event] = []
    private(set) var diagnostics: [Diagnostic] = []
    /// VTODO and VJOURNAL components seen (reported when there are no events).
    private(set) var otherComponents = 0
    /// The parsed calendars; they own every `Event.pointer`.
    private var roots: [ICalComponent] = []

    init(_ data: Data, file: String) throws(ICalBridgeError) {
        self.file = file
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard bytes.contains(where: { $0 > 0x20 }) else {
            throw ICalBridgeError(.badInput, "the input is empty (expected iCalendar)", location: file)
        }
        guard !bytes.contains(0) else {
            throw ICalBridgeError(.badInput, "binary data, not iCalendar text", location: file)
        }
        let text: String
        if let utf8 = String(validating: bytes, as: UTF8.self) {
            text = utf8
        } else {
            text = String(bytes.map { Character(Unicode.Scalar($0)) })
            diagnostics.append(Diagnostic(.warning, "the file is not UTF-8; read as Latin-1", file: file))
        }
        let calendars = Self.calendarTexts(in: text)
        guard !calendars.isEmpty else {
            throw ICalBridgeError(
                .badInput, "no BEGIN:VCALENDAR or BEGIN:VEVENT: this is not iCalendar", location: file)
        }
        for (calendarText, firstLine) in calendars {
            guard let root = ICalComponent.parse(calendarText) else {
                diagnostics.append(
                    Diagnostic(.error, "libical could not read this calendar", file: file, line: firstLine))
                continue
            }
            roots.append(root)
            read(root, text: calendarText, firstLine: firstLine)
        }
    }

    /// The calendars of a stream with the line each starts on; a bare VEVENT stream is one calendar.
    static func calendarTexts(in text: String) -> [(String, Int)] {
        var result: [(String, Int)] = []
        var current: [Substring] = []
        var currentStart = 0
        var lineNumber = 0
        var sawEvent = false
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let trimmed = line.hasSuffix("\r") ? line.dropLast() : line
            let upper = trimmed.prefix(20).uppercased()
            if upper.hasPrefix("BEGIN:VCALENDAR") {
                current = [trimmed]
                currentStart = lineNumber
                continue
            }
            if !current.isEmpty {
                current.append(trimmed)
                if upper.hasPrefix("END:VCALENDAR") {
                    result.append((current.joined(separator: "\r\n") + "\r\n", currentStart))
                    current = []
                }
            } else if upper.hasPrefix("BEGIN:VEVENT") {
                sawEvent = true
            }
        }
        if !current.isEmpty {
            // A truncated calendar: give libical what there is; it reports what is missing.
            result.append((current.joined(separator: "\r\n") + "\r\nEND:VCALENDAR\r\n", currentStart))
        }
        if result.isEmpty, sawEvent {
            result.append(("BEGIN:VCALENDAR\r\n" + text + "\r\nEND:VCALENDAR\r\n", 0))
        }
        return result
    }

    private func read(_ root: ICalComponent, text: String, firstLine: Int) {
        let calendars: [OpaquePointer] =
            icalcomponent_isa(root.pointer) == ICAL_VCALENDAR_COMPONENT
            ? [root.pointer] : ICalComponent.children(of: root.pointer, ICAL_VCALENDAR_COMPONENT)
        // Lines of the BEGIN:VEVENT lines, in order, to place libical's events (same order as the text).
        var eventLines: [Int] = []
        var lineNumber = firstLine
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: false) {
            if line.prefix(12).uppercased() == "BEGIN:VEVENT" { eventLines.append(lineNumber) }
            lineNumber += 1
        }
        var eventIndex = 0
        for calendar in calendars {
            let method = ICalComponent.value(of: "METHOD", in: calendar)?.uppercased()
            var timezones: [String: String] = [:]
            for zone in ICalComponent.children(of: calendar, ICAL_VTIMEZONE_COMPONENT) {
                guard let tzid = ICalComponent.value(of: "TZID", in: zone),
                    let raw = icalcomponent_as_ical_string_r(zone)
                else { continue }
                timezones[tzid] = String(cString: raw)
                free(raw)
            }
            otherComponents += ICalComponent.children(of: calendar, ICAL_VTODO_COMPONENT).count
            otherComponents += ICalComponent.children(of: calendar, ICAL_VJOURNAL_COMPONENT).count
            for errorText in Self.calendarLevelErrors(calendar) {
                diagnostics.append(Diagnostic(.warning, "libical: \(errorText)", file: file))
            }
            for event in ICalComponent.children(of: calendar, ICAL_VEVENT_COMPONENT) {
                let line = eventIndex < eventLines.count ? eventLines[eventIndex] : nil
                eventIndex += 1
                events.append(Event(pointer: event, method: method, timezones: timezones, line: line))
            }
        }
    }

    /// `X-LIC-ERROR`s directly on the calendar (event-level ones are reported with their event).
    private static func calendarLevelErrors(_ calendar: OpaquePointer) -> [String] {
        var result: [String] = []
        var property = icalcomponent_get_first_property(calendar, ICAL_XLICERROR_PROPERTY)
        while let current = property {
            if let text = icalproperty_get_xlicerror(current) { result.append(String(cString: text)) }
            property = icalcomponent_get_next_property(calendar, ICAL_XLICERROR_PROPERTY)
        }
        return result
    }

    /// Every `X-LIC-ERROR` inside an event (its alarms included).
    static func errors(in event: OpaquePointer) -> [String] {
        ICalComponent.parserErrors(in: event)
    }
}
