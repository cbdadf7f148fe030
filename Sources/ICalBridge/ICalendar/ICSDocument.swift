internal import CLibical
import Foundation

/// An `.ics` input read by libical: its calendars, their METHOD, embedded VTIMEZONEs and VEVENTs, and what
/// went wrong while reading.
///
/// Reading never fails on bad content (libical inserts `X-LIC-ERROR` properties, which become
/// diagnostics); it fails only when the input holds no calendar data at all. Several VCALENDARs in one
/// stream, LF-only lines, folded lines and a UTF-8 byte order mark all work; input that is not UTF-8 is
/// read as Windows-1252 (what "Latin-1" means on the web) with a warning. Not thread-safe.
final class ICSDocument {
    /// One VEVENT with where it came from, lent by ``withEvents(_:)``.
    struct Event {
        /// The VEVENT, borrowed from the document's trees: valid only inside ``withEvents(_:)``.
        let pointer: OpaquePointer
        /// The calendar's METHOD (`PUBLISH`, `REQUEST`, `CANCEL`, …), upper-cased; nil when absent.
        let method: String?
        /// VTIMEZONE text by TZID, of the calendar the event is in.
        let timezones: [String: String]
        /// 1-based line of the event's `BEGIN:VEVENT` in the input.
        let line: Int?
        /// Its UID ("" when it has none).
        let uid: String
        /// Whether it has a RECURRENCE-ID: it changes one occurrence of a series.
        let isOverride: Bool
        /// How many of its RRULEs libical expands by stepping and filtering (see
        /// ``RecurrenceRule/isFiltering``).
        let filteringRecurrenceRules: Int

        init(pointer: OpaquePointer, method: String?, timezones: [String: String], line: Int?, identity: Identity) {
            self.pointer = pointer
            self.method = method
            self.timezones = timezones
            self.line = line
            uid = identity.uid
            isOverride = identity.isOverride
            filteringRecurrenceRules = identity.filteringRecurrenceRules
        }

        /// What sorts a VEVENT into series and their overrides; read where the VEVENT is parsed, on all cores
        /// for a large file.
        struct Identity {
            var uid: String
            var isOverride: Bool
            var filteringRecurrenceRules: Int

            init(_ event: OpaquePointer) {
                uid = ICalComponent.value(of: "UID", in: event) ?? ""
                isOverride = icalcomponent_get_first_property(event, ICAL_RECURRENCEID_PROPERTY) != nil
                var count = 0
                var property = icalcomponent_get_first_property(event, ICAL_RRULE_PROPERTY)
                while let current = property {
                    if RecurrenceRule(copying: icalproperty_get_rrule(current)).isFiltering { count += 1 }
                    property = icalcomponent_get_next_property(event, ICAL_RRULE_PROPERTY)
                }
                filteringRecurrenceRules = count
            }
        }
    }

    let file: String
    /// The VEVENTs; handed out only through ``withEvents(_:)``.
    private var events: [Event] = []
    private(set) var diagnostics: [Diagnostic] = []
    /// VTODO and VJOURNAL components seen (reported when there are no events).
    private(set) var otherComponents = 0
    /// The parsed calendars; they own every `Event.pointer`.
    private var roots: [ICalComponent] = []

    /// The VEVENTs, lent for the duration of `body` (which may hand them to other threads): the document,
    /// which owns their components, stays alive until `body` returns, and no `Event` may be kept past it.
    func withEvents<Result>(_ body: ([Event]) throws -> Result) rethrows -> Result {
        try withExtendedLifetime(self) { try body(events) }
    }

    deinit {
        // Freeing the trees of a large file takes as long as parsing a part of it: done on all cores.
        guard roots.count > 1 else { return }
        var trees: [[ICalComponent]] = roots.map { [$0] }
        roots = []
        trees.withUnsafeMutableBufferPointer { trees in
            Parallel.forEach(count: trees.count) { trees[$0] = [] }
        }
    }

    convenience init(_ data: Data, file: String) throws(ICalBridgeError) {
        let prepared = try Self.calendars(of: data, file: file)
        self.init(prepared, file: file)
    }

    /// The calendars of an input as text, and the warning about its encoding, when it is not UTF-8.
    struct PreparedInput {
        var calendars: [CalendarText]
        var diagnostics: [Diagnostic]
    }

    /// Checks `data` (named `file`) and cuts it into its calendars: what ``init(_:file:)`` reads, and
    /// ``ICSToGraph`` streams. Throws when the input holds no calendar data at all.
    static func calendars(of data: Data, file: String) throws(ICalBridgeError) -> PreparedInput {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let (hasText, hasNUL) = bytes.withUnsafeBytes { raw in
            (raw.contains { $0 > 0x20 }, raw.baseAddress.map { memchr($0, 0, raw.count) != nil } ?? false)
        }
        guard hasText else {
            throw ICalBridgeError(.badInput, "the input is empty (expected iCalendar)", location: file)
        }
        guard !hasNUL else {
            throw ICalBridgeError(.badInput, "binary data, not iCalendar text", location: file)
        }
        if let line = bytes.withUnsafeBytes({ Self.lineNestedTooDeep($0) }) {
            throw ICalBridgeError(
                .badInput,
                "line \(line): components are nested more than \(Self.maximumNesting) levels deep; this is not a"
                    + " calendar graph-ics reads",
                location: file)
        }
        var diagnostics: [Diagnostic] = []
        let calendars: [CalendarText]
        if bytes.withUnsafeBytes({ UTF8Check.isValid($0) }) {
            // Sliced, not copied: the calendars hold the input's bytes once.
            calendars = Self.calendarTexts(in: bytes)
        } else {
            let (text, dropped) = Self.windows1252(bytes)
            calendars = Self.calendarTexts(in: text)
            let droppedNote =
                dropped == 0
                ? ""
                : "; \(dropped) byte\(dropped == 1 ? "" : "s") Windows-1252 leaves undefined (0x81, 0x8D, 0x8F, "
                    + "0x90, 0x9D) dropped"
            diagnostics.append(
                Diagnostic(
                    .warning, "the file is not UTF-8; read as Windows-1252 (Latin-1 as the web reads it)\(droppedNote)",
                    file: file))
        }
        guard !calendars.isEmpty else {
            throw ICalBridgeError(
                .badInput, "no BEGIN:VCALENDAR or BEGIN:VEVENT: this is not iCalendar", location: file)
        }
        return PreparedInput(calendars: calendars, diagnostics: diagnostics)
    }

    /// Reads the calendars ``calendars(of:file:)`` cut out, each whole or in parts.
    init(_ prepared: PreparedInput, file: String) {
        self.file = file
        diagnostics = prepared.diagnostics
        let calendars = prepared.calendars
        for calendar in calendars {
            if let split = calendar.split() {
                for index in calendar.unterminated {
                    diagnostics.append(
                        Diagnostic(
                            .warning, "this VEVENT has no END:VEVENT; it is read up to the next component",
                            file: file, line: calendar.eventLines[index]))
                }
                readSplit(split, firstLine: calendar.firstLine)
                continue
            }
            guard let root = ICalComponent.parse(bytes: calendar.text, keeping: Self.extensionsRead) else {
                diagnostics.append(
                    Diagnostic(.error, "libical could not read this calendar", file: file, line: calendar.firstLine))
                continue
            }
            roots.append(root)
            read(root, eventLines: calendar.eventLines)
        }
    }

    /// Windows-1252 bytes as a string (the WHATWG Encoding Standard's reading of "Latin-1"): 0x80–0x9F are
    /// the curly quotes, dashes, € and the rest Windows puts there, other bytes the code point of the same
    /// number. The five bytes Windows-1252 leaves undefined are dropped; `dropped` counts them.
    static func windows1252(_ bytes: some Collection<UInt8>) -> (text: String, dropped: Int) {
        var scalars = String.UnicodeScalarView()
        scalars.reserveCapacity(bytes.count)
        var dropped = 0
        for byte in bytes {
            guard byte >= 0x80 && byte < 0xA0 else {
                scalars.append(Unicode.Scalar(byte))
                continue
            }
            let value = windows1252High[Int(byte - 0x80)]
            guard value != 0, let scalar = Unicode.Scalar(value) else {
                dropped += 1
                continue
            }
            scalars.append(scalar)
        }
        return (String(scalars), dropped)
    }

    /// The code points of Windows-1252's bytes 0x80–0x9F; 0 where it defines none.
    static let windows1252High: [UInt32] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0,
        0x017D, 0, 0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
        0x0153, 0, 0x017E, 0x0178,
    ]

    /// A large calendar read in parts: its header (properties, VTIMEZONEs, to-dos) once, and its VEVENTs in
    /// chunks that libical parses on all cores at once (each parse has its own parser state).
    private func readSplit(_ split: SplitCalendar, firstLine: Int) {
        let chunks = split.chunks
        let parts = Parallel.mapEach(count: chunks.count) { index in
            let root = ICalComponent.parse(bytes: chunks[index].text, keeping: Self.extensionsRead)
            let identities = root.map { root in
                ICalComponent.children(of: root.pointer, ICAL_VEVENT_COMPONENT).map { ($0, Event.Identity($0)) }
            }
            return (root: root, identities: identities ?? [])
        }
        let (method, timezones) = readHeader(split.header, firstLine: firstLine)
        for (chunk, part) in zip(chunks, parts) {
            guard let root = part.root else {
                diagnostics.append(
                    Diagnostic(
                        .error, "libical could not read the events from this line on", file: file,
                        line: chunk.eventLines.first))
                continue
            }
            roots.append(root)
            for (number, (event, identity)) in part.identities.enumerated() {
                let line = number < chunk.eventLines.count ? chunk.eventLines[number] : nil
                events.append(
                    Event(pointer: event, method: method, timezones: timezones, line: line, identity: identity))
            }
        }
    }

    /// Reads the header of a calendar read in parts (its properties, VTIMEZONEs, to-dos): the METHOD and
    /// time zones its events are read with.
    func readHeader(_ header: [UInt8], firstLine: Int) -> (method: String?, timezones: [String: String]) {
        guard let header = ICalComponent.parse(bytes: header, keeping: Self.extensionsRead) else {
            diagnostics.append(
                Diagnostic(
                    .error,
                    "libical could not read this calendar's properties and time zones; its events are read without them",
                    file: file, line: firstLine))
            return (nil, [:])
        }
        roots.append(header)
        read(header, eventLines: [])
        return (
            ICalComponent.value(of: "METHOD", in: header.pointer)?.uppercased(), Self.timezoneTexts(of: header.pointer)
        )
    }

    /// Adds a diagnostic of the input (the streamed import's, which reads its events elsewhere).
    func report(_ diagnostic: Diagnostic) {
        diagnostics.append(diagnostic)
    }

    /// The `X-` properties the import reads (`EventDecoder`); libical is not given the others. A property
    /// read from here on must be named here too (the tests of each one fail otherwise).
    static let extensionsRead = ICalComponent.ExtensionFilter(
        names: ["X-ALT-DESC", "X-GRAPH-ICS-SENSITIVITY", "X-MICROSOFT-CDO-BUSYSTATUS", "X-MICROSOFT-CDO-IMPORTANCE"],
        prefixes: ["X-LIC-"])

    /// The lines ``Event/Identity`` reads (and the component lines around them): what the streamed import
    /// parses first, to sort a file's VEVENTs into series and overrides at a fraction of a full parse.
    static let identityRead = ICalComponent.ExtensionFilter(
        names: ["BEGIN", "END", "UID", "RECURRENCE-ID", "RRULE"], prefixes: [], onlyThese: true)

    /// The deepest nesting of components graph-ics reads. Real calendars nest three deep (VCALENDAR, VEVENT,
    /// VALARM); libical frees and walks component trees recursively, so thousands of levels (a hostile file)
    /// would overflow the stack.
    static let maximumNesting = 64

    /// The 1-based line whose `BEGIN:` nests components deeper than ``maximumNesting``; nil when none does.
    static func lineNestedTooDeep(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        func hasPrefix(_ word: StaticString, at index: Int, length: Int) -> Bool {
            let count = word.utf8CodeUnitCount
            guard length >= count else { return false }
            for offset in 0..<count {
                let expected = word.utf8Start[offset]
                let byte = bytes[index + offset]
                // Letters compare without case; the colon exactly.
                if byte != expected && (expected < 0x41 || expected > 0x5A || byte != expected | 0x20) { return false }
            }
            return true
        }
        var depth = 0
        var line = 1
        var start = 0
        while start < bytes.count {
            var end = bytes.count
            if let found = memchr(base + start, 0x0A, bytes.count - start) {
                end = UnsafeRawPointer(found) - base
            }
            if hasPrefix("BEGIN:", at: start, length: end - start) {
                depth += 1
                if depth > maximumNesting { return line }
            } else if hasPrefix("END:", at: start, length: end - start) {
                depth = max(0, depth - 1)
            }
            line += 1
            start = end + 1
        }
        return nil
    }

    private func read(_ root: ICalComponent, eventLines: [Int]) {
        let calendars: [OpaquePointer] =
            icalcomponent_isa(root.pointer) == ICAL_VCALENDAR_COMPONENT
            ? [root.pointer] : ICalComponent.children(of: root.pointer, ICAL_VCALENDAR_COMPONENT)
        // libical keeps the events in text order, so the n-th VEVENT starts on the n-th BEGIN:VEVENT line.
        var eventIndex = 0
        for calendar in calendars {
            let method = ICalComponent.value(of: "METHOD", in: calendar)?.uppercased()
            let timezones = Self.timezoneTexts(of: calendar)
            otherComponents += ICalComponent.children(of: calendar, ICAL_VTODO_COMPONENT).count
            otherComponents += ICalComponent.children(of: calendar, ICAL_VJOURNAL_COMPONENT).count
            for errorText in Self.calendarLevelErrors(calendar) {
                diagnostics.append(Diagnostic(.warning, "libical: \(errorText)", file: file))
            }
            for event in ICalComponent.children(of: calendar, ICAL_VEVENT_COMPONENT) {
                let line = eventIndex < eventLines.count ? eventLines[eventIndex] : nil
                eventIndex += 1
                events.append(
                    Event(
                        pointer: event, method: method, timezones: timezones, line: line,
                        identity: Event.Identity(event)))
            }
        }
    }

    /// The VTIMEZONEs of a calendar as text, by TZID.
    private static func timezoneTexts(of calendar: OpaquePointer) -> [String: String] {
        var timezones: [String: String] = [:]
        for zone in ICalComponent.children(of: calendar, ICAL_VTIMEZONE_COMPONENT) {
            guard let tzid = ICalComponent.value(of: "TZID", in: zone),
                let raw = icalcomponent_as_ical_string_r(zone)
            else { continue }
            timezones[tzid] = String(cString: raw)
            free(raw)
        }
        return timezones
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
