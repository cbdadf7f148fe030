import Foundation

// Cutting a stream into its VCALENDARs, and a large calendar into chunks libical parses on all cores.
extension ICSDocument {
    /// One VCALENDAR of the input as text, with the line it starts on and the lines and byte ranges of its
    /// VEVENTs.
    struct CalendarText {
        /// The calendar's UTF-8 bytes: a slice of the bytes it was cut from, sharing their storage (a large
        /// input is held once, not once more as its calendars). Its indices start where the slice does: read it
        /// through `withUnsafeBytes`, whose offsets are those of ``eventRanges``.
        var text: Data
        var firstLine: Int
        var eventLines: [Int]
        /// The byte range of each VEVENT (from its BEGIN line to the end of its END line, or to the line
        /// before the next VEVENT or the calendar's end when its END line is missing); nil when the
        /// structure is too broken to cut (an END:VEVENT without BEGIN), so that libical reads it whole.
        var eventRanges: [Range<Int>]?
        /// The indices of VEVENTs without END:VEVENT.
        var unterminated: [Int] = []

        /// Calendars with fewer VEVENTs are parsed whole (unless a VEVENT lacks its END line: libical would
        /// then lose every event after it, so those calendars are cut and mended).
        static let splitThreshold = 256

        /// The calendar without its VEVENTs, and its VEVENTs in chunks each wrapped in a VCALENDAR (a missing
        /// END:VEVENT added); nil when the calendar is better read whole.
        func split() -> SplitCalendar? {
            guard isCut, let ranges = eventRanges else { return nil }
            let header = self.header()
            // Many chunks (not one per core), so that a core that finishes early takes the next one.
            let pieces = Parallel.slices(count: ranges.count, minimum: 64, perCore: 16)
            return SplitCalendar(
                header: header,
                chunks: pieces.map { SplitCalendar.Chunk(text: eventsText($0), eventLines: Array(eventLines[$0])) })
        }

        /// Whether the calendar is read in parts (``split()``, or streamed).
        var isCut: Bool {
            guard let ranges = eventRanges, ranges.count == eventLines.count else { return false }
            return ranges.count >= Self.splitThreshold || !unterminated.isEmpty
        }

        /// The calendar without its VEVENTs: its properties, VTIMEZONEs and other components. Only for a
        /// calendar that ``isCut``.
        func header() -> [UInt8] {
            let ranges = eventRanges ?? []
            return text.withUnsafeBytes { raw in
                let bytes = raw.assumingMemoryBound(to: UInt8.self)
                var header: [UInt8] = []
                var position = 0
                for range in ranges {
                    header.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position..<range.lowerBound]))
                    position = range.upperBound
                }
                header.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position..<bytes.count]))
                return header
            }
        }

        /// The VEVENTs `events` (indices into ``eventLines``) wrapped in a VCALENDAR of their own, a missing
        /// END:VEVENT added. Only for a calendar that ``isCut``.
        func eventsText(_ events: Range<Int>) -> [UInt8] {
            let ranges = eventRanges ?? []
            let unterminated = Set(unterminated)
            return text.withUnsafeBytes { raw in
                let bytes = raw.assumingMemoryBound(to: UInt8.self)
                var body = Array("BEGIN:VCALENDAR\r\n".utf8)
                if unterminated.isEmpty {
                    body.append(
                        contentsOf: UnsafeBufferPointer(
                            rebasing: bytes[
                                ranges[events.lowerBound].lowerBound..<ranges[events.upperBound - 1].upperBound]))
                } else {
                    for index in events {
                        body.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[ranges[index]]))
                        if unterminated.contains(index) { body += "END:VEVENT\r\n".utf8 }
                    }
                }
                body += "END:VCALENDAR\r\n".utf8
                return body
            }
        }
    }

    struct SplitCalendar: Equatable {
        /// Texts are UTF-8 bytes, handed to libical without a `String` in between.
        struct Chunk: Equatable {
            var text: [UInt8]
            var eventLines: [Int]
        }
        var header: [UInt8]
        var chunks: [Chunk]
    }

    /// The calendars of a stream, each with the line it starts on and the lines of its `BEGIN:VEVENT`s;
    /// a bare VEVENT stream is one calendar. Scanned as UTF-8 bytes: the text is sliced, not rebuilt.
    static func calendarTexts(in text: String) -> [CalendarText] {
        calendarTexts(in: Data(text.utf8))
    }

    /// ``calendarTexts(in:)-(String)`` of UTF-8 bytes. Each calendar's ``CalendarText/text`` is a slice of
    /// `data`, not a copy: `data` may be let go once the calendars are cut.
    static func calendarTexts(in data: Data) -> [CalendarText] {
        data.withUnsafeBytes { raw in
            var scanner = CalendarScanner(bytes: raw.assumingMemoryBound(to: UInt8.self), data: data)
            var lineStart = 0
            while lineStart < raw.count {
                let lineEnd = scanner.endOfLine(from: lineStart)
                scanner.read(lineStart: lineStart, lineEnd: lineEnd)
                scanner.lineNumber += 1
                lineStart = lineEnd + 1
            }
            return scanner.finish()
        }
    }

    /// The state of ``calendarTexts(in:)-(Data)`` between lines: the calendar being read, its VEVENTs so
    /// far, and VEVENTs outside any calendar.
    private struct CalendarScanner {
        /// The bytes of `data`; offsets are counted from their start.
        let bytes: UnsafeBufferPointer<UInt8>
        /// What the calendars' texts are sliced from.
        let data: Data
        var result: [CalendarText] = []
        var calendarStart: Int?
        var calendarLine = 0
        var eventLines: [Int] = []
        var eventRanges: [Range<Int>]? = []
        var eventStart: Int?
        var unterminated: [Int] = []
        var bareEventLines: [Int] = []
        var lineNumber = 1

        /// Acts on one line (from `lineStart` to the LF at `lineEnd`, or the end).
        mutating func read(lineStart: Int, lineEnd: Int) {
            let first = bytes[lineStart] & 0xDF
            if first == UInt8(ascii: "B"), startsWith("BEGIN:VCALENDAR", at: lineStart) {
                calendarStart = lineStart
                calendarLine = lineNumber
                eventLines = []
                eventRanges = []
                unterminated = []
                eventStart = nil
            } else if first == UInt8(ascii: "B"), startsWith("BEGIN:VEVENT", at: lineStart) {
                beginEvent(at: lineStart)
            } else if first == UInt8(ascii: "E"), calendarStart != nil, startsWith("END:VEVENT", at: lineStart) {
                if let start = eventStart {
                    eventRanges?.append(start..<min(lineEnd + 1, bytes.count))
                } else {
                    eventRanges = nil
                }
                eventStart = nil
            } else if first == UInt8(ascii: "E"), calendarStart != nil, startsWith("END:VCALENDAR", at: lineStart) {
                endCalendar(lineStart: lineStart, lineEnd: lineEnd)
            }
        }

        private mutating func beginEvent(at lineStart: Int) {
            guard calendarStart != nil else {
                bareEventLines.append(lineNumber)
                return
            }
            if let start = eventStart {
                unterminated.append(eventLines.count - 1)
                eventRanges?.append(start..<lineStart)
            }
            eventLines.append(lineNumber)
            eventStart = lineStart
        }

        private mutating func endCalendar(lineStart: Int, lineEnd: Int) {
            guard let start = calendarStart else { return }
            if let open = eventStart {
                unterminated.append(eventLines.count - 1)
                eventRanges?.append(open..<lineStart)
                eventStart = nil
            }
            result.append(
                CalendarText(
                    text: slice(start, min(lineEnd + 1, bytes.count)), firstLine: calendarLine,
                    eventLines: eventLines,
                    eventRanges: eventRanges?.map { ($0.lowerBound - start)..<($0.upperBound - start) },
                    unterminated: unterminated))
            calendarStart = nil
        }

        /// The calendars read, with a truncated last one (libical reports what is missing) and, when there
        /// is no calendar at all, the bare VEVENTs wrapped in one.
        mutating func finish() -> [CalendarText] {
            if let start = calendarStart {
                result.append(
                    CalendarText(
                        text: slice(start, bytes.count) + Data("\r\nEND:VCALENDAR\r\n".utf8),
                        firstLine: calendarLine, eventLines: eventLines, eventRanges: nil))
            }
            if result.isEmpty, !bareEventLines.isEmpty {
                result.append(
                    CalendarText(
                        text: Data("BEGIN:VCALENDAR\r\n".utf8) + slice(0, bytes.count)
                            + Data("\r\nEND:VCALENDAR\r\n".utf8), firstLine: 0,
                        eventLines: bareEventLines, eventRanges: nil))
            }
            return result
        }

        /// Whether the line at `index` starts with `word`, ASCII letters compared case-insensitively.
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

        /// The bytes from offset `start` to `end`, sharing `data`'s storage.
        func slice(_ start: Int, _ end: Int) -> Data {
            data[(data.startIndex + start)..<(data.startIndex + end)]
        }

        func endOfLine(from start: Int) -> Int {
            guard let base = bytes.baseAddress, let found = memchr(base + start, 0x0A, bytes.count - start) else {
                return bytes.count
            }
            return UnsafeRawPointer(found) - UnsafeRawPointer(base)
        }
    }
}
