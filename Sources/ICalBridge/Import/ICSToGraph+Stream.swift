internal import CLibical
import Foundation

extension ICSToGraph {
    /// The events of ``stream(_:options:settings:transform:consume:)`` in each group: as many as libical
    /// parses at once on one core, and freed together.
    static let streamChunk = 256

    /// Plans the import of `data` as ``plan(_:options:settings:)`` does, but hands the planned events on in
    /// file order as they are planned instead of collecting them: `transform` turns each group of events into
    /// what the caller keeps of them (their JSON, their report lines) on whichever core planned them, and
    /// `consume` takes the groups one after the other on the calling thread. A large calendar is then never
    /// held whole, neither as libical's trees nor as planned events: only the groups being planned are.
    ///
    /// The events come in the order ``plan(_:options:settings:)`` gives them, each series with its overrides
    /// wherever in the file they are (RFC 5545 allows them anywhere): a first, light pass reads only the
    /// identity of every VEVENT (UID, RECURRENCE-ID, RRULE) and indexes the overrides by UID. Occurrences
    /// whose series is not in the file come last, as events of their own.
    ///
    /// - Returns: the plan without its events (diagnostics, zones, counts), and how many events were planned.
    /// - Throws: what `consume` throws (no group is handed on after it).
    public static func stream<Batch>(
        _ input: ICSInput, options: ImportOptions, settings: ImportSettings = ImportSettings(),
        transform: ([PlannedEvent]) -> Batch, consume: (Batch) throws(ICalBridgeError) -> Void
    ) throws(ICalBridgeError) -> (plan: ImportPlan, events: Int) {
        let prepared = input.prepared
        guard prepared.calendars.allSatisfy(\.isCut) else {
            // Small calendars (and broken ones libical reads whole): planned whole, handed on in groups.
            var plan = ICSToGraph.plan(ICSDocument(prepared, file: options.file), options: options, settings: settings)
            let events = plan.events
            plan.events = []
            let slices = Parallel.slices(count: events.count, minimum: 256)
            for batch in Parallel.mapEach(count: slices.count, { transform(Array(events[slices[$0]])) }) {
                try consume(batch)
            }
            return (plan, events.count)
        }
        var stream = ICSStream(prepared, options: options, settings: settings)
        return try stream.run(transform: transform, consume: consume)
    }
}

/// An `.ics` input checked and cut into its calendars (``ICSToGraph/read(_:file:)``). A UTF-8 input's calendars
/// are slices of the bytes it was read from, which they keep alive: the caller may let its own reference go
/// before streaming, and the input is held once, not twice.
public struct ICSInput {
    let prepared: ICSDocument.PreparedInput
}

extension ICSToGraph {
    /// Checks `data` (named `file`) and cuts it into its calendars, for ``stream(_:options:settings:transform:consume:)``.
    ///
    /// - Throws: ``ICalBridgeError`` (`.badInput`) when the input holds no iCalendar data at all.
    public static func read(_ data: Data, file: String) throws(ICalBridgeError) -> ICSInput {
        ICSInput(prepared: try ICSDocument.calendars(of: data, file: file))
    }
}

/// The state of ``ICSToGraph/stream(_:options:settings:transform:consume:)`` over calendars that are all read
/// in parts.
private struct ICSStream {
    /// A group of VEVENTs of one calendar, parsed together.
    struct Chunk {
        var calendar: Int
        var events: Range<Int>
    }

    /// Where a VEVENT is: its calendar and its index there.
    struct Position: Hashable {
        var calendar: Int
        var index: Int
    }

    /// The METHOD and time zones of one calendar, read from its header.
    struct Header {
        var method: String?
        var timezones: [String: String]
    }

    let calendars: [ICSDocument.CalendarText]
    let options: ImportOptions
    let settings: ImportSettings
    /// Holds the headers' trees and the input's diagnostics (the encoding, unterminated VEVENTs, headers).
    let document: ICSDocument
    var headers: [Header] = []
    var chunks: [Chunk] = []

    init(_ prepared: ICSDocument.PreparedInput, options: ImportOptions, settings: ImportSettings) {
        calendars = prepared.calendars
        self.options = options
        self.settings = settings
        document = ICSDocument(
            ICSDocument.PreparedInput(calendars: [], diagnostics: prepared.diagnostics), file: options.file)
        for (number, calendar) in calendars.enumerated() {
            for index in calendar.unterminated {
                document.report(
                    Diagnostic(
                        .warning, "this VEVENT has no END:VEVENT; it is read up to the next component",
                        file: options.file, line: calendar.eventLines[index]))
            }
            let header = document.readHeader(calendar.header(), firstLine: calendar.firstLine)
            headers.append(Header(method: header.method, timezones: header.timezones))
            let count = calendar.eventLines.count
            for start in stride(from: 0, to: count, by: ICSToGraph.streamChunk) {
                chunks.append(Chunk(calendar: number, events: start..<min(start + ICSToGraph.streamChunk, count)))
            }
        }
    }

    /// What the first pass learns of one chunk: whether each VEVENT is an override, the overrides' UIDs, the
    /// series' UIDs, and the filtering RRULEs; nil when libical cannot read the chunk.
    struct ChunkIndex {
        var isOverride: [Bool]
        var overrides: [(uid: String, position: Position)]
        var seriesUIDs: [String]
        var filteringRecurrenceRules: Int
    }

    mutating func run<Batch>(
        transform: ([PlannedEvent]) -> Batch, consume: (Batch) throws(ICalBridgeError) -> Void
    ) throws(ICalBridgeError) -> (plan: ImportPlan, events: Int) {
        // The first pass: identities only, on all cores.
        let indexes: [ChunkIndex?] = Parallel.mapEach(count: chunks.count) { number in
            let chunk = chunks[number]
            let calendar = calendars[chunk.calendar]
            guard
                let root = ICalComponent.parse(
                    bytes: calendar.eventsText(chunk.events), keeping: ICSDocument.identityRead)
            else { return nil }
            var index = ChunkIndex(isOverride: [], overrides: [], seriesUIDs: [], filteringRecurrenceRules: 0)
            for (offset, event) in ICalComponent.children(of: root.pointer, ICAL_VEVENT_COMPONENT).enumerated() {
                let identity = ICSDocument.Event.Identity(event)
                index.isOverride.append(identity.isOverride)
                index.filteringRecurrenceRules += identity.filteringRecurrenceRules
                if identity.isOverride {
                    index.overrides.append(
                        (identity.uid, Position(calendar: chunk.calendar, index: chunk.events.lowerBound + offset)))
                } else {
                    index.seriesUIDs.append(identity.uid)
                }
            }
            return index
        }
        var overrides: [String: [Position]] = [:]
        var sourceEvents = 0
        var filteringRecurrenceRules = 0
        for index in indexes {
            guard let index else { continue }
            sourceEvents += index.isOverride.count
            filteringRecurrenceRules += index.filteringRecurrenceRules
            for (uid, position) in index.overrides { overrides[uid, default: []].append(position) }
        }
        var orphans = Set(overrides.keys)
        for index in indexes where !orphans.isEmpty {
            for uid in index?.seriesUIDs ?? [] { orphans.remove(uid) }
        }
        let isOverride = indexes.map { $0?.isOverride }

        var options = options
        options.expansionBudget = ICSToGraph.expansionBudget(filteringRecurrenceRules: filteringRecurrenceRules)
        var decoder = EventDecoder(options: options, settings: settings)
        var unreadable: [Diagnostic] = []
        var planned = 0

        // The second pass: a window of chunks at a time, each parsed, planned and transformed on one core and
        // its trees freed there; the windows' results handed on in order.
        // A decoder per place in the window, kept from window to window: it resolves each TZID of the file once,
        // not once per chunk.
        let window = max(2, Parallel.cores * 4)
        var decoders = Array(repeating: EventDecoder(options: options, settings: settings), count: window)
        for first in stride(from: 0, to: chunks.count, by: window) {
            let numbers = first..<min(first + window, chunks.count)
            let lent = decoders
            let done = Parallel.mapEach(count: numbers.count) { offset in
                planChunk(
                    numbers.lowerBound + offset, isOverride: isOverride[numbers.lowerBound + offset],
                    overrides: overrides, decoder: lent[offset], transform: transform)
            }
            for (offset, result) in done.enumerated() {
                if var used = result?.decoder {
                    decoder.diagnostics += used.diagnostics
                    used.diagnostics = []
                    decoders[offset] = used
                }
                guard let result else {
                    let chunk = chunks[numbers.lowerBound + offset]
                    unreadable.append(
                        Diagnostic(
                            .error, "libical could not read the events from this line on", file: options.file,
                            line: calendars[chunk.calendar].eventLines[chunk.events.lowerBound]))
                    continue
                }
                decoder.zoneResolutions.merge(result.decoder.zoneResolutions) { first, _ in first }
                decoder.readsFloatingTimes = decoder.readsFloatingTimes || result.decoder.readsFloatingTimes
                planned += result.events
                try consume(result.batch)
            }
        }
        // Occurrences whose series is not in the file (an invitation to one occurrence): events of their own.
        var lone: [PlannedEvent] = []
        for uid in orphans.sorted() {
            for position in overrides[uid] ?? [] {
                guard let single = parseAlone(position) else { continue }
                lone += decoder.plan(single.event, overrides: [])
            }
        }
        if !lone.isEmpty {
            planned += lone.count
            try consume(transform(lone))
        }

        var plan = ImportPlan()
        plan.diagnostics = document.diagnostics + unreadable + decoder.diagnostics
        plan.sourceEvents = sourceEvents
        plan.zoneResolutions = decoder.zoneResolutions
        plan.readsFloatingTimes = decoder.readsFloatingTimes
        if sourceEvents == 0 {
            let what = document.otherComponents > 0 ? "only to-dos or journal entries, no events" : "no events"
            plan.diagnostics.append(Diagnostic(.error, "the file holds \(what)", file: options.file))
        }
        return (plan, planned)
    }

    /// One chunk of the second pass: its series planned with their overrides and transformed; nil when
    /// libical cannot read it.
    private func planChunk<Batch>(
        _ number: Int, isOverride: [Bool]?, overrides: [String: [Position]], decoder: EventDecoder,
        transform: ([PlannedEvent]) -> Batch
    ) -> (batch: Batch, events: Int, decoder: EventDecoder)? {
        let chunk = chunks[number]
        let calendar = calendars[chunk.calendar]
        let header = headers[chunk.calendar]
        guard
            let root = ICalComponent.parse(
                bytes: calendar.eventsText(chunk.events), keeping: ICSDocument.extensionsRead)
        else { return nil }
        let events = ICalComponent.children(of: root.pointer, ICAL_VEVENT_COMPONENT).enumerated().map { offset, event in
            let index = chunk.events.lowerBound + offset
            return ICSDocument.Event(
                pointer: event, method: header.method, timezones: header.timezones,
                line: index < chunk.events.upperBound ? calendar.eventLines[index] : nil,
                identity: ICSDocument.Event.Identity(event))
        }
        var decoder = decoder
        var planned: [PlannedEvent] = []
        // Overrides from other chunks, parsed one by one; their trees live as long as this chunk's.
        var alone: [ICalComponent] = []
        for (offset, event) in events.enumerated() {
            let overridden = isOverride.map { offset < $0.count ? $0[offset] : event.isOverride } ?? event.isOverride
            guard !overridden else { continue }
            var own: [ICSDocument.Event] = []
            for position in overrides[event.uid] ?? [] {
                if position.calendar == chunk.calendar, chunk.events.contains(position.index),
                    position.index - chunk.events.lowerBound < events.count
                {
                    own.append(events[position.index - chunk.events.lowerBound])
                } else if let single = parseAlone(position) {
                    alone.append(single.root)
                    own.append(single.event)
                }
            }
            planned += decoder.plan(event, overrides: own)
        }
        let batch = withExtendedLifetime((root, alone)) { transform(planned) }
        return (batch, planned.count, decoder)
    }

    /// The VEVENT at `position` parsed on its own (an override of a series in another chunk).
    private func parseAlone(_ position: Position) -> (event: ICSDocument.Event, root: ICalComponent)? {
        let calendar = calendars[position.calendar]
        let header = headers[position.calendar]
        guard
            let root = ICalComponent.parse(
                bytes: calendar.eventsText(position.index..<position.index + 1), keeping: ICSDocument.extensionsRead),
            let event = ICalComponent.children(of: root.pointer, ICAL_VEVENT_COMPONENT).first
        else { return nil }
        return (
            ICSDocument.Event(
                pointer: event, method: header.method, timezones: header.timezones,
                line: calendar.eventLines[position.index], identity: ICSDocument.Event.Identity(event)),
            root
        )
    }
}
