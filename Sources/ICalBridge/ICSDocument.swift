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
        for (calendarText, firstLine, eventLines) in calendars {
            guard let root = ICalComponent.parse(calendarText) else {
                diagnostics.append(
                    Diagnostic(.error, "libical could not read this calendar", file: file, line: firstLine))
                continue
            }
            roots.append(root)
            read(root, eventLines: eventLines)
        }
    }

    /// The calendars of a stream, each with the line it starts on and the lines of its `BEGIN:VEVENT`s;
    /// a bare VEVENT stream is one calendar. Scanned as UTF-8 bytes: the text is sliced, not rebuilt.
    static func calendarTexts(in text: String) -> [(text: String, firstLine: Int, eventLines: [Int])] {
        var text = text
        return text.withUTF8 { bytes in
            var result: [(String, Int, [Int])] = []
            var calendarStart: Int?
            var calendarLine = 0
            var eventLines: [Int] = []
            var bareEventLines: [Int] = []
            var lineNumber = 1
            var lineStart = 0
            func startsWith(_ word: StaticString, at index: Int) -> Bool {
                let count = word.utf8CodeUnitCount
                guard index + count <= bytes.count else { return false }
                for offset in 0..<count {
                    var byte = bytes[index + offset]
                    if byte >= 0x61 && byte <= 0x7A { byte -= 0x20 }
                    if byte != word.utf8Start[offset] { return false }
                }
                return true
            }
            func slice(_ start: Int, _ end: Int) -> String {
                String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            }
            while lineStart < bytes.count {
                var lineEnd = lineStart
                while lineEnd < bytes.count, bytes[lineEnd] != 0x0A { lineEnd += 1 }
                if startsWith("BEGIN:VCALENDAR", at: lineStart) {
                    calendarStart = lineStart
                    calendarLine = lineNumber
                    eventLines = []
                } else if startsWith("BEGIN:VEVENT", at: lineStart) {
                    if calendarStart != nil { eventLines.append(lineNumber) } else { bareEventLines.append(lineNumber) }
                } else if let start = calendarStart, startsWith("END:VCALENDAR", at: lineStart) {
                    result.append((slice(start, min(lineEnd + 1, bytes.count)), calendarLine, eventLines))
                    calendarStart = nil
                }
                lineNumber += 1
                lineStart = lineEnd + 1
            }
            if let start = calendarStart {
                // A truncated calendar: give libical what there is; it reports what is missing.
                result.append((slice(start, bytes.count) + "\r\nEND:VCALENDAR\r\n", calendarLine, eventLines))
            }
            if result.isEmpty, !bareEventLines.isEmpty {
                result.append(
                    ("BEGIN:VCALENDAR\r\n" + slice(0, bytes.count) + "\r\nEND:VCALENDAR\r\n", 0, bareEventLines))
            }
            return result
        }
    }

    private func read(_ root: ICalComponent, eventLines: [Int]) {
        let calendars: [OpaquePointer] =
            icalcomponent_isa(root.pointer) == ICAL_VCALENDAR_COMPONENT
            ? [root.pointer] : ICalComponent.children(of: root.pointer, ICAL_VCALENDAR_COMPONENT)
        // libical keeps the events in text order, so the n-th VEVENT starts on the n-th BEGIN:VEVENT line.
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
