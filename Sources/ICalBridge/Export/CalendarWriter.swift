import Foundation

/// Writes a whole VCALENDAR whose VEVENTs arrive one page at a time, in bounded memory.
///
/// VEVENT text is spooled as it arrives (in memory up to 32 MB, then in an unlinked temporary file); only a small index entry per
/// event (start, UID, offset, length) and the range of instants per zone stay in memory. ``finish(into:)``
/// then writes the header, one VTIMEZONE per zone used (truncated to the instants the events use), and
/// the events in deterministic order: by start, then UID. Not thread-safe.
public final class CalendarWriter {
    private struct Entry {
        var start: Int64
        var uid: String
        var offset: Int64
        var length: Int
        var isOverride: Bool
    }

    private let spool: SpoolFile
    private var entries: [Entry] = []
    /// Per zone used: the spans of instants events need it for (a day each for single events, merged as
    /// they come), and whether a series without end uses it.
    private var zoneSpans: [String: ZoneSpans] = [:]

    private struct ZoneSpans {
        var zone: ICalZone
        /// Days with a single-instant use: a set, so that a long export costs a day each at most.
        var days: Set<Int64> = []
        /// Longer spans (series).
        var ranges: [ClosedRange<Int64>] = []
        var openEnded = false
    }
    private let productID: String
    private let method: String?
    private let calendarName: String?

    /// - Parameters:
    ///   - productID: the PRODID value.
    ///   - method: the METHOD value (`PUBLISH` for an export), or nil for none.
    ///   - calendarName: the calendar's name for NAME (RFC 7986) and X-WR-CALNAME (what Apple, Google and
    ///     Thunderbird show), or nil to leave both out.
    ///   - spoolDirectory: where the spool file lives (it is unlinked at once and never visible).
    ///   - spoolMemoryLimit: bytes of VEVENT text kept in memory before spooling moves to the file.
    public init(
        productID: String = GraphICSVersion.productID,
        method: String? = "PUBLISH",
        calendarName: String? = nil,
        spoolDirectory: String? = nil,
        spoolMemoryLimit: Int = 32 << 20
    ) throws(ICalBridgeError) {
        self.productID = productID
        self.method = method
        self.calendarName = calendarName.map(ICalText.singleLine).flatMap { $0.isEmpty ? nil : $0 }
        self.spool = try SpoolFile(directory: spoolDirectory, memoryLimit: spoolMemoryLimit)
    }

    /// Makes room for about `bytes` of VEVENT text at once (up to the memory limit), so that a large
    /// export does not grow the spool step by step.
    public func reserveCapacity(_ bytes: Int) {
        spool.reserveCapacity(bytes)
    }

    /// The number of events added so far.
    public var count: Int { entries.count }

    /// The UIDs of the events (once each; after ``finish(into:)`` in the order written) and how many of
    /// them are not overrides (no RECURRENCE-ID): what a reader of the calendar would find, without reading it.
    public var shape: (uids: [String], masterCount: Int) {
        var seen: Set<String> = []
        var uids: [String] = []
        var masters = 0
        for entry in entries {
            if seen.insert(entry.uid).inserted { uids.append(entry.uid) }
            if !entry.isOverride { masters += 1 }
        }
        return (uids, masters)
    }

    /// Adds one VEVENT; its text goes to the spool at once.
    public func add(_ event: EncodedEvent) throws(ICalBridgeError) {
        let offset = try spool.append(event.text)
        entries.append(
            Entry(
                start: event.sortStart, uid: event.uid, offset: offset, length: event.text.count,
                isOverride: event.isOverride))
        for use in event.zoneUses {
            let day = Self.day(use.from)
            let lastDay = use.to.map(Self.day) ?? day
            // Mutated in place: copying the entry out would copy its set for every event.
            if zoneSpans[use.zone.name] == nil { zoneSpans[use.zone.name] = ZoneSpans(zone: use.zone) }
            if use.to == nil { zoneSpans[use.zone.name]?.openEnded = true }
            if lastDay == day {
                zoneSpans[use.zone.name]?.days.insert(day)
            } else {
                zoneSpans[use.zone.name]?.ranges.append(day...max(day, lastDay))
            }
        }
    }

    static func day(_ instant: Int64) -> Int64 {
        instant >= 0 ? instant / 86_400 : (instant - 86_399) / 86_400
    }

    /// Time windows covering the given spans of days with a day of margin either side (so that readers
    /// that expand a little early or late still find the rule in force); spans less than four days apart
    /// share a window.
    static func windows(days spans: [ClosedRange<Int64>]) -> [(from: Int64, to: Int64)] {
        var windows: [(from: Int64, to: Int64)] = []
        for span in spans.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = windows.last, span.lowerBound * 86_400 <= last.to + 2 * 86_400 {
                windows[windows.count - 1].to = max(last.to, (span.upperBound + 2) * 86_400)
            } else {
                windows.append(((span.lowerBound - 1) * 86_400, (span.upperBound + 2) * 86_400))
            }
        }
        return windows
    }

    /// Writes the complete calendar into `sink`.
    public func finish<Sink: ByteSink>(into sink: inout Sink) throws(ICalBridgeError) {
        var header = "BEGIN:VCALENDAR\r\n"
        header += String(decoding: ICalText.refoldedLine("PRODID:" + productID), as: UTF8.self)
        header += "VERSION:2.0\r\nCALSCALE:GREGORIAN\r\n"
        if let method { header += "METHOD:\(method)\r\n" }
        try sink.write(header)
        if let calendarName {
            var lines = ContentLines(capacity: 256)
            lines.text("NAME", calendarName)
            lines.text("X-WR-CALNAME", calendarName)
            try sink.write(lines.bytes)
        }
        for name in zoneSpans.keys.sorted() {
            guard let use = zoneSpans[name] else { continue }
            let spans = use.days.map { $0...$0 } + use.ranges
            try sink.write(try use.zone.vtimezone(windows: Self.windows(days: spans), openEnded: use.openEnded))
        }
        // Ties on start and UID keep input order (the spool offset), so output never depends on the sort.
        entries.sort {
            if $0.start != $1.start { return $0.start < $1.start }
            if $0.uid != $1.uid { return $0.uid < $1.uid }
            return $0.offset < $1.offset
        }
        var buffer: [UInt8] = []
        for entry in entries {
            try spool.copy(offset: entry.offset, length: entry.length, into: &sink, buffer: &buffer)
        }
        try sink.write("END:VCALENDAR\r\n")
    }
}

extension ICalText {
    /// One content line, folded, with CRLF.
    static func refoldedLine(_ line: String) -> [UInt8] {
        var line = line
        return line.withUTF8 { refold($0) }
    }
}
