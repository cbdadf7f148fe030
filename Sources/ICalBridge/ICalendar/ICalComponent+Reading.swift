internal import CLibical
import Foundation

extension ICalComponent {
    /// Parses iCalendar text with libical (`icalparser_parse` over ``LineSource``). libical does not fail on
    /// bad input: it inserts `X-LIC-ERROR` properties, which ``parserErrors`` collects. Nil only when libical
    /// returns nothing at all (no `BEGIN:` line).
    static func parse(_ text: String) -> ICalComponent? {
        var text = text
        return text.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }

    /// Parses UTF-8 iCalendar text given as bytes (no NUL inside). With `keeping`, libical never sees the
    /// `X-` properties whose names are not in it (nor their folded continuation lines): the reader has
    /// no use for them, and libical builds each property it is given (see ``ExtensionFilter``).
    static func parse(bytes: some ContiguousBytes, keeping extensions: ExtensionFilter? = nil) -> ICalComponent? {
        bytes.withUnsafeBytes { parse($0, keeping: extensions) }
    }

    private static func parse(_ text: UnsafeRawBufferPointer, keeping extensions: ExtensionFilter? = nil)
        -> ICalComponent?
    {
        guard let parser = icalparser_new() else { return nil }
        defer { icalparser_free(parser) }
        let source = LineSource(text, keeping: extensions)
        let root = withExtendedLifetime(source) { () -> OpaquePointer? in
            icalparser_set_gen_data(parser, Unmanaged.passUnretained(source).toOpaque())
            return icalparser_parse(parser) { buffer, size, context in
                guard let buffer, let context else { return nil }
                return Unmanaged<LineSource>.fromOpaque(context).takeUnretainedValue().next(into: buffer, size: size)
            }
        }
        return root.map { ICalComponent(owning: $0) }
    }

    /// The `X-` properties a reader uses; every other `X-` property is left out before libical parses.
    ///
    /// libical looks each property name up by comparing it with every name it knows, one `strcasecmp` at a
    /// time, and an `X-` name is compared with all of them before it is taken as an extension; then it
    /// allocates the property, its parameters and its value. Outlook and graph-ics's own exports carry
    /// several `X-` lines per event that the import never reads (event ids, web links, Outlook's internal
    /// flags): left out, a 10,000-event file is parsed in four fifths of the time.
    struct ExtensionFilter {
        /// Names kept, upper-case.
        let names: [StaticString]
        /// Prefixes kept, upper-case (`X-LIC-`: libical's own properties, such as `X-LIC-LOCATION`).
        let prefixes: [StaticString]
        /// Whether every property not named is left out, not only `X-` ones.
        let onlyThese: Bool

        init(names: [StaticString], prefixes: [StaticString], onlyThese: Bool = false) {
            self.names = names
            self.prefixes = prefixes
            self.onlyThese = onlyThese
        }

        /// Whether the line at the start of `line` is an `X-` property (with ``onlyThese``, any property)
        /// not kept. Only a line whose name ends on it (at `;` or `:`) is judged; anything else (a
        /// continuation line of a kept property among it) is left to libical.
        func drops(_ line: UnsafeRawBufferPointer) -> Bool {
            if onlyThese {
                guard line.count > 1, line[0] != 0x20, line[0] != 0x09 else { return false }
            } else {
                guard line.count > 2, line[0] | 0x20 == UInt8(ascii: "x"), line[1] == UInt8(ascii: "-") else {
                    return false
                }
            }
            var end = onlyThese ? 0 : 2
            while end < line.count, line[end] != UInt8(ascii: ";"), line[end] != UInt8(ascii: ":") {
                if line[end] == 0x0A || line[end] == 0x0D { return false }
                end += 1
            }
            guard end < line.count else { return false }
            let name = UnsafeRawBufferPointer(rebasing: line[0..<end])
            func matches(_ word: StaticString, wholeName: Bool) -> Bool {
                let count = word.utf8CodeUnitCount
                guard wholeName ? name.count == count : name.count >= count else { return false }
                for index in 0..<count {
                    var byte = name[index]
                    if byte >= 0x61 && byte <= 0x7A { byte -= 0x20 }
                    if byte != word.utf8Start[index] { return false }
                }
                return true
            }
            return !names.contains { matches($0, wholeName: true) }
                && !prefixes.contains { matches($0, wholeName: false) }
        }
    }

    /// The line generator libical's parser reads from: up to `size - 1` bytes of the text at a time, ending
    /// after a line feed, NUL-terminated (like `fgets`).
    ///
    /// libical's own `icalparser_string_line_generator` looks for the next line feed with `strchr` over the
    /// whole rest of the text each time it hands out its 80 bytes, so a line of n bytes costs n²/80 byte
    /// comparisons: minutes for a 20 MB DESCRIPTION. This one never looks past the bytes it hands out
    /// (and the lines it leaves out).
    private final class LineSource {
        private let text: UnsafeRawBufferPointer
        private let extensions: ExtensionFilter?
        private var position = 0
        /// Whether `position` is at the start of a line (not in a long line handed out in pieces).
        private var atLineStart = true

        init(_ text: UnsafeRawBufferPointer, keeping extensions: ExtensionFilter?) {
            self.text = text
            self.extensions = extensions
        }

        func next(into buffer: UnsafeMutablePointer<CChar>, size: Int) -> UnsafeMutablePointer<CChar>? {
            guard size > 1, let base = text.baseAddress else { return nil }
            if atLineStart, let extensions {
                // A left-out property goes with its continuation lines (those starting with a space or tab).
                while position < text.count,
                    extensions.drops(UnsafeRawBufferPointer(rebasing: text[position..<min(text.count, position + 256)]))
                {
                    repeat {
                        position = endOfLine(from: position)
                    } while position < text.count && (text[position] == 0x20 || text[position] == 0x09)
                }
            }
            guard position < text.count else { return nil }
            let start = base + position
            let window = min(size - 1, text.count - position)
            var count = window
            if let newline = memchr(start, 0x0A, window) {
                count = UnsafeRawPointer(newline) - start + 1
            }
            memcpy(buffer, start, count)
            buffer[count] = 0
            position += count
            atLineStart = start.load(fromByteOffset: count - 1, as: UInt8.self) == 0x0A
            return buffer
        }

        /// The index after the line feed that ends the line at `start`, or the text's end.
        private func endOfLine(from start: Int) -> Int {
            guard let base = text.baseAddress, let newline = memchr(base + start, 0x0A, text.count - start) else {
                return text.count
            }
            return UnsafeRawPointer(newline) - UnsafeRawPointer(base) + 1
        }
    }

    /// The components of `kind` directly inside this one (collected first: nested first/next loops over
    /// one parent reset each other in libical).
    func children(_ kind: icalcomponent_kind) -> [OpaquePointer] {
        Self.children(of: pointer, kind)
    }

    static func children(of parent: OpaquePointer, _ kind: icalcomponent_kind) -> [OpaquePointer] {
        var result: [OpaquePointer] = []
        var child = icalcomponent_get_first_component(parent, kind)
        while let current = child {
            result.append(current)
            child = icalcomponent_get_next_component(parent, kind)
        }
        return result
    }

    /// The properties of `kind` of a component, collected first (nested first/next loops reset each other).
    static func properties(of component: OpaquePointer, _ kind: icalproperty_kind) -> [OpaquePointer] {
        var result: [OpaquePointer] = []
        var property = icalcomponent_get_first_property(component, kind)
        while let current = property {
            result.append(current)
            property = icalcomponent_get_next_property(component, kind)
        }
        return result
    }

    /// Every `X-LIC-ERROR` in the tree, except libical's complaint about an empty SUMMARY: RFC 5545 TEXT
    /// may be empty, and graph-ics writes `SUMMARY:` for an event without subject (calcurse crashes on
    /// an event without SUMMARY); libical drops the property, which reads as no subject all the same.
    var parserErrors: [String] {
        Self.parserErrors(in: pointer)
    }

    static func parserErrors(in component: OpaquePointer) -> [String] {
        var result: [String] = []
        var property = icalcomponent_get_first_property(component, ICAL_XLICERROR_PROPERTY)
        while let current = property {
            if let text = icalproperty_get_xlicerror(current) {
                let message = String(cString: text)
                if !message.hasPrefix("No value for SUMMARY property") { result.append(message) }
            }
            property = icalcomponent_get_next_property(component, ICAL_XLICERROR_PROPERTY)
        }
        for child in children(of: component, ICAL_ANY_COMPONENT) { result += parserErrors(in: child) }
        return result
    }

    /// The VEVENTs of a parsed stream: of the root itself when it is a VEVENT, of each VCALENDAR otherwise.
    var events: [OpaquePointer] {
        switch icalcomponent_isa(pointer) {
        case ICAL_VEVENT_COMPONENT: return [pointer]
        case ICAL_VCALENDAR_COMPONENT: return children(ICAL_VEVENT_COMPONENT)
        default:
            return children(ICAL_VCALENDAR_COMPONENT).flatMap { Self.children(of: $0, ICAL_VEVENT_COMPONENT) }
        }
    }

    /// The decoded value of the first property named `name` of `component` (TEXT unescaped by libical).
    static func value(of name: String, in component: OpaquePointer) -> String? {
        guard let property = named(name, in: component, firstOnly: true).first,
            let value = icalproperty_get_value(property)
        else { return nil }
        return decoded(value)
    }

    /// Every decoded value of the properties named `name` of `component`.
    static func values(of name: String, in component: OpaquePointer) -> [String] {
        named(name, in: component, firstOnly: false).compactMap { property in
            icalproperty_get_value(property).flatMap(decoded)
        }
    }

    /// A value as text: TEXT as libical unescaped it while parsing; any other kind as written, unescaped.
    static func decoded(_ value: OpaquePointer) -> String? {
        if icalvalue_isa(value) == ICAL_TEXT_VALUE, let text = icalvalue_get_text(value) {
            return String(cString: text)
        }
        // Ring-buffer string: copied at once, never freed.
        return icalvalue_as_ical_string(value).map { ICalText.unescaped(String(cString: $0)) }
    }

    /// libical's kinds of the property names graph-ics reads: `icalproperty_string_to_kind` compares the
    /// name with every entry of its table, which cost more than the rest of reading an event.
    private static let knownKinds: [String: icalproperty_kind] = Dictionary(
        uniqueKeysWithValues: [
            "ACTION", "CLASS", "DESCRIPTION", "DTSTAMP", "DTSTART", "LOCATION", "METHOD", "PRIORITY", "RRULE",
            "SEQUENCE", "STATUS", "SUMMARY", "TRANSP", "TZID", "TZNAME", "UID", "URL",
        ].map { name in (name, name.withCString { icalproperty_string_to_kind($0) }) })

    /// The properties called `name`: looked up by libical's kind for standard names (no walk over every
    /// property), among the X- properties by name otherwise.
    static func named(_ name: String, in component: OpaquePointer, firstOnly: Bool) -> [OpaquePointer] {
        let kind =
            knownKinds[name]
            ?? (name.utf8.starts(with: "X-".utf8)
                ? ICAL_X_PROPERTY : name.withCString { icalproperty_string_to_kind($0) })
        let isStandard = kind != ICAL_X_PROPERTY && kind != ICAL_NO_PROPERTY
        let searched = isStandard ? kind : ICAL_X_PROPERTY
        var result: [OpaquePointer] = []
        var property = icalcomponent_get_first_property(component, searched)
        while let current = property {
            if isStandard || icalproperty_get_x_name(current).map({ String(cString: $0) }) == name {
                result.append(current)
                if firstOnly { break }
            }
            property = icalcomponent_get_next_property(component, searched)
        }
        return result
    }
}

extension ICalText {
    /// The inverse of ``escaped(_:)``: `\n`/`\N` become line breaks, `\,` `\;` `\\` their characters.
    static func unescaped(_ value: String) -> String {
        var value = value
        guard value.utf8.contains(0x5C) else { return value }
        return value.withUTF8 { bytes in
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count)
            var index = 0
            while index < bytes.count {
                // Copy the run up to the next backslash at once, then the escaped character.
                var next = index
                while next < bytes.count, bytes[next] != 0x5C { next += 1 }
                result.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<next]))
                guard next + 1 < bytes.count else { break }
                let escaped = bytes[next + 1]
                result.append(escaped == UInt8(ascii: "n") || escaped == UInt8(ascii: "N") ? 0x0A : escaped)
                index = next + 2
            }
            return String(decoding: result, as: UTF8.self)
        }
    }
}
