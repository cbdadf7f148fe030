import Foundation

// MARK: - Series mode: one master, its overrides and EXDATEs

/// What series mode knows about one series until it is written.
struct SeriesState {
    /// The master, when it came in the pages.
    var master: GraphEvent?
    /// The original starts of the occurrences and exceptions in the pages.
    var seen: [Int64] = []
    /// The original starts of occurrences Graph returned as cancelled (`isCancelled`).
    var cancelled: [Int64] = []
    /// The original starts of occurrences the export's selection leaves out.
    var leftOut: [Int64] = []
    var exceptions: [(originalStart: Int64, event: GraphEvent)] = []
    /// The occurrences as instances, in case the series cannot be written as one.
    var fallback: [FallbackOccurrence] = []
    /// False once the series is written.
    var isOpen = true
}

/// An occurrence's instance VEVENT waiting in the fallback spool (nil when it failed to encode), with
/// the diagnostics reported only if it is used.
struct FallbackOccurrence {
    var event: SpooledEvent?
    var diagnostics: [Diagnostic]
}

/// Where a VEVENT lies in a spool, and what the writer needs to index it.
struct SpooledEvent {
    var offset: Int64
    var length: Int
    var uid: String
    var sortStart: Int64
    var zoneUses: [ZoneUse]
}

extension GraphToICS.PageStream {
    /// Why a series is written as instances instead.
    struct SeriesFallback: Error {
        var reason: String
    }

    /// One occurrence the series' pattern produces: a key (the start instant; for all-day series the day
    /// number) and its span.
    struct PatternOccurrence {
        var key: Int64
        var start: Int64
        var end: Int64
        /// Whether its wall-clock start does not exist in the series' zone (a spring-forward gap).
        var inGap = false
    }

    /// How the master's DTSTART is written, which RECURRENCE-ID and EXDATE follow.
    enum StartForm {
        case date
        case local(ICalZone)
        case utc

        init(_ times: EventEncoder.Times) {
            if times.isAllDay {
                self = .date
            } else if case .zone(let zone) = times.startZone, ICalZone.supportedInstants.contains(times.start),
                zone.localTimeIsExact(at: times.start)
            {
                self = .local(zone)
            } else {
                self = .utc
            }
        }

        /// Writes `name` for the occurrence with `key` (an instant, or for `.date` a day number).
        func write(_ name: String, key: Int64, into lines: inout ContentLines, uses: inout [ZoneUse]) {
            switch self {
            case .date:
                lines.time(
                    name, CivilDateTime(secondsSinceEpoch: key * 86_400), parameters: ["VALUE": "DATE"], dateOnly: true)
            case .local(let zone)
            where ICalZone.supportedInstants.contains(key) && zone.localTimeIsExact(at: key):
                lines.time(name, zone.localTime(at: key), parameters: ["TZID": zone.name])
                uses.append(ZoneUse(zone: zone, from: key, to: key))
            case .local, .utc:
                lines.time(name, CivilDateTime(secondsSinceEpoch: key), utc: true)
            }
        }
    }

    /// Writes series `id`: as one series when that can be done exactly, else as instances.
    func completeSeries(
        _ id: String,
        master: GraphEvent?,
        instances: InstancePages?
    ) throws {
        guard var state = series[id], state.isOpen else { return }
        // Whatever happens next, the series is written once and its waiting data freed.
        series[id] = SeriesState(isOpen: false)
        do {
            guard let master else {
                throw SeriesFallback(reason: "its series master could not be read")
            }
            guard options.selection.apply(to: master) != nil else {
                // Left out as a whole; an exception the selection keeps (busy in a free series) stays.
                return try writeAsInstances(state)
            }
            try writeSeries(id, master: master, state: &state, instances: instances)
        } catch let fallback as SeriesFallback {
            diagnostics.append(
                Diagnostic(
                    .warning, "series written as single occurrences: \(fallback.reason)", file: options.file,
                    eventID: id, subject: master?.subject ?? state.exceptions.first?.event.subject))
            try writeAsInstances(state)
        }
    }

    /// The series' occurrences and exceptions as standalone VEVENTs, as in instances mode.
    func writeAsInstances(_ state: SeriesState) throws(ICalBridgeError) {
        var buffer: [UInt8] = []
        for occurrence in state.fallback {
            diagnostics += occurrence.diagnostics
            guard let spooled = occurrence.event else { continue }
            var text = ByteBuffer()
            try fallbackSpool.copy(offset: spooled.offset, length: spooled.length, into: &text, buffer: &buffer)
            try writer.add(
                EncodedEvent(
                    text: text.bytes, uid: spooled.uid, sortStart: spooled.sortStart, zoneUses: spooled.zoneUses))
        }
        for (_, event) in state.exceptions {
            let (encoded, found) = Self.encodeInstance(event, encoder: encoder)
            diagnostics += found
            if let encoded { try writer.add(encoded) }
        }
    }

    /// Fetches the instances of a series between two instants, handing over each page of Graph's JSON.
    typealias InstancePages = (_ start: Int64, _ end: Int64, _ onPage: (Data) throws -> Void) throws -> Void

    /// A series master's recurrence as an RRULE, with the master's times.
    struct SeriesRecurrence {
        var recurrence: GraphPatternedRecurrence
        var times: EventEncoder.Times
        /// The RRULE value (without `RRULE:`).
        var rrule: String
    }

    /// Writes the master with RRULE and EXDATEs, then its overrides; throws ``SeriesFallback`` before
    /// writing anything when the series cannot be written exactly.
    ///
    /// Every occurrence Graph returned must be one the RRULE produces. An occurrence of the pattern in the
    /// exported range that Graph did not return was moved (an exception, looked up with `instances`) or
    /// deleted (an EXDATE).
    func writeSeries(_ id: String, master graphMaster: GraphEvent, state: inout SeriesState, instances: InstancePages?)
        throws
    {
        let master = Self.inRecurrenceZone(graphMaster)
        let series = try seriesRecurrence(of: master)
        let times = series.times
        let horizon = range?.upperBound ?? (state.seen.max() ?? times.start)
        let occurrences = patternOccurrences(
            rrule: series.rrule, recurrence: series.recurrence, times: times, until: horizon)
        let patternKeys = Set(occurrences.map(\.key))
        if let stray = state.seen.first(where: { !patternKeys.contains(key(ofOriginal: $0, times: times)) }) {
            throw SeriesFallback(
                reason:
                    "Graph has an occurrence originally at \(Self.compactUTC(stray)) that its pattern does not produce"
            )
        }
        var missing = missingOccurrences(
            occurrences, seen: Set(state.seen.map { key(ofOriginal: $0, times: times) }))
        if !missing.isEmpty, let instances {
            missing = try exceptionsMoved(
                from: missing, of: occurrences, times: times, state: &state, instances: instances)
        }
        let written = try writeMaster(
            master, times: times, deleted: missing.map { occurrences[$0].key }, state: state)
        let gaps = gapOverrides(
            master, occurrences: occurrences, times: times, state: state,
            taken: Set(missing.map { occurrences[$0].key }))
        try writeOverrides(
            written.overrides + gaps, uid: written.uid, times: times, inUTC: Set(gaps.map(\.originalStart)))
    }

    /// The occurrences Graph returned whose wall-clock start falls in a spring-forward gap of the series'
    /// zone and that are not exceptions (which are overrides already), EXDATEs or left out: each as an
    /// override of the master at its exact times in UTC, as Graph holds it. RFC 5545 §3.3.10 lets a strict
    /// reader drop such an occurrence of the RRULE, and the readers that keep it place it differently.
    func gapOverrides(
        _ master: GraphEvent, occurrences: [PatternOccurrence], times: EventEncoder.Times, state: SeriesState,
        taken: Set<Int64>
    ) -> [(originalStart: Int64, event: GraphEvent)] {
        guard !times.isAllDay else { return [] }
        let gaps = occurrences.filter(\.inGap)
        guard !gaps.isEmpty else { return [] }
        let seen = Set(state.seen)
        var skipped = taken.union(state.cancelled).union(state.leftOut)
        skipped.formUnion(state.exceptions.map(\.originalStart))
        return gaps.filter { seen.contains($0.key) && !skipped.contains($0.key) }.map { occurrence in
            var event = master
            event.recurrence = nil
            event.type = "occurrence"
            event.start = GraphDateTimeTimeZone(instant: occurrence.start, graphZone: nil)
            event.end = GraphDateTimeTimeZone(instant: occurrence.end, graphZone: nil)
            event.originalStartTimeZone = "UTC"
            event.originalEndTimeZone = "UTC"
            return (occurrence.key, event)
        }
    }

    /// The master as its pattern runs. Graph repeats a pattern in the wall-clock time of
    /// `range.recurrenceTimeZone`, which is not the master's `originalStartTimeZone` when a series was created
    /// in one zone and its pattern kept in another, or its zone was changed later in Outlook (MS-OXOCAL keeps a
    /// pattern's times in the recurrence's own zone): the master's times are then shown in the recurrence's
    /// zone, so that the RRULE repeats where Graph's occurrences are. All-day series keep their days.
    static func inRecurrenceZone(_ master: GraphEvent) -> GraphEvent {
        guard master.isAllDay != true, let name = master.recurrence?.range?.recurrenceTimeZone,
            case .resolved(let zone, _) = ZoneResolver.resolve(name)
        else { return master }
        if case .resolved(let shown, _) = ZoneResolver.resolve(master.originalStartTimeZone), shown == zone {
            return master
        }
        var inZone = master
        if master.originalEndTimeZone == nil || master.originalEndTimeZone == master.originalStartTimeZone {
            inZone.originalEndTimeZone = name
        }
        inZone.originalStartTimeZone = name
        return inZone
    }

    /// The master's recurrence, times and RRULE, or why the series cannot be written as one.
    func seriesRecurrence(of master: GraphEvent) throws(SeriesFallback) -> SeriesRecurrence {
        guard let recurrence = master.recurrence, recurrence.pattern != nil else {
            throw SeriesFallback(reason: "its master has no recurrence pattern")
        }
        var context = EventEncoder.Context(event: master, options: options)
        guard let times = context.resolveTimes() else {
            let reasons = context.diagnostics.map(\.message).joined(separator: "; ")
            throw SeriesFallback(reason: "the master's times cannot be read (\(reasons))")
        }
        let zone = times.startZone
        let localStart = times.isAllDay ? times.startDate : zone.localTime(at: times.start)
        switch RecurrenceMapping.rrule(
            from: recurrence, start: localStart, isAllDay: times.isAllDay,
            endOfDayToUTC: { zone.instant(forLocal: $0) })
        {
        case .success(let rrule):
            return SeriesRecurrence(recurrence: recurrence, times: times, rrule: rrule)
        case .failure(let unsupported):
            throw SeriesFallback(reason: "its recurrence has no RRULE: \(unsupported.reason)")
        }
    }

    /// The key of the occurrence originally at `instant`: the instant, for an all-day series its day (see
    /// ``day(of:in:)``).
    func key(ofOriginal instant: Int64, times: EventEncoder.Times) -> Int64 {
        times.isAllDay ? Self.day(of: instant, in: allDayZone) : instant
    }

    /// The indexes of the occurrences in the exported range whose keys are not in `seen` (none without a
    /// range: then Graph returned no occurrences to compare with).
    func missingOccurrences(_ occurrences: [PatternOccurrence], seen: Set<Int64>) -> [Int] {
        guard let range else { return [] }
        var missing: [Int] = []
        for (index, occurrence) in occurrences.enumerated() where !seen.contains(occurrence.key) {
            let overlaps =
                occurrence.end > occurrence.start
                ? occurrence.start < range.upperBound && occurrence.end > range.lowerBound
                : range.contains(occurrence.start)
            if overlaps { missing.append(index) }
        }
        return missing
    }

    /// Looks up the missing occurrences (indexes into `occurrences`) among the series' instances and adds
    /// those that were moved (exceptions) to `state`; returns the ones still missing: deleted.
    func exceptionsMoved(
        from missing: [Int], of occurrences: [PatternOccurrence], times: EventEncoder.Times,
        state: inout SeriesState, instances: InstancePages
    ) throws -> [Int] {
        guard let first = missing.first, let last = missing.last else { return missing }
        // An exception stays between its neighbours: look from two occurrences before to two after.
        let month: Int64 = 31 * 86_400
        let from = first >= 2 ? occurrences[first - 2].start : occurrences[first].start - month
        let to = last + 2 < occurrences.count ? occurrences[last + 2].end : occurrences[last].end + month
        var found: [GraphEvent] = []
        try instances(from, max(to, from + 1)) { page in
            _ = try GraphEventDocument.forEachEvent(in: page, file: options.file) { found.append($0) }
        }
        var missingKeys = Set(missing.map { occurrences[$0].key })
        for event in found {
            guard let original = Self.originalStart(of: event),
                missingKeys.remove(key(ofOriginal: original, times: times)) != nil
            else { continue }
            if event.type == "exception", !state.exceptions.contains(where: { $0.event.id == event.id }) {
                state.exceptions.append((original, event))
            }
        }
        return missing.filter { missingKeys.contains(occurrences[$0].key) }
    }

    /// Writes the master with an EXDATE for each key in `deleted`, and for each occurrence or exception
    /// Graph marks cancelled unless the whole series is; returns its UID and the exceptions left to write
    /// as overrides.
    func writeMaster(_ master: GraphEvent, times: EventEncoder.Times, deleted: [Int64], state: SeriesState) throws
        -> (uid: String, overrides: [(originalStart: Int64, event: GraphEvent)])
    {
        var masterDiagnostics: [Diagnostic] = []
        guard var encoded = Self.encodeSelected(master, encoder: encoder, diagnostics: &masterDiagnostics) else {
            let reasons = masterDiagnostics.map(\.message).joined(separator: "; ")
            throw SeriesFallback(reason: "its master cannot be converted (\(reasons))")
        }
        var exdateKeys = Set(deleted + state.leftOut.map { key(ofOriginal: $0, times: times) })
        var exceptions = state.exceptions
        let selection = options.selection
        exdateKeys.formUnion(
            exceptions.filter { selection.apply(to: $0.event) == nil }.map {
                key(ofOriginal: $0.originalStart, times: times)
            })
        exceptions.removeAll { selection.apply(to: $0.event) == nil }
        if master.isCancelled != true {
            exdateKeys.formUnion(state.cancelled.map { key(ofOriginal: $0, times: times) })
            exdateKeys.formUnion(
                exceptions.filter { $0.event.isCancelled == true }.map {
                    key(ofOriginal: $0.originalStart, times: times)
                })
            exceptions.removeAll { $0.event.isCancelled == true }
        }
        let form = StartForm(times)
        var exdates = ContentLines(capacity: 64 * exdateKeys.count)
        for key in exdateKeys.sorted() {
            form.write("EXDATE", key: key, into: &exdates, uses: &encoded.zoneUses)
        }
        encoded.text = Self.splice(exdates.bytes, into: encoded.text)
        diagnostics += masterDiagnostics
        try writer.add(encoded)
        return (encoded.uid, exceptions)
    }

    /// Writes each exception as an override of the master `uid`, with its RECURRENCE-ID, in the order of
    /// their original starts; the RECURRENCE-ID in UTC for the original starts in `inUTC`.
    func writeOverrides(
        _ exceptions: [(originalStart: Int64, event: GraphEvent)], uid: String, times: EventEncoder.Times,
        inUTC: Set<Int64> = []
    )
        throws(ICalBridgeError)
    {
        let form = StartForm(times)
        for (original, exception) in exceptions.sorted(by: { $0.originalStart < $1.originalStart }) {
            var event = exception
            event.iCalUId = uid
            event.recurrence = nil
            var found: [Diagnostic] = []
            guard var override = Self.encodeSelected(event, encoder: encoder, diagnostics: &found) else {
                diagnostics += found
                continue
            }
            diagnostics += found
            var line = ContentLines(capacity: 96)
            (inUTC.contains(original) ? StartForm.utc : form).write(
                "RECURRENCE-ID", key: key(ofOriginal: original, times: times), into: &line, uses: &override.zoneUses)
            override.text = Self.splice(line.bytes, into: override.text)
            override.isOverride = true
            try writer.add(override)
        }
    }

    /// The pattern's occurrences from the master's start until `horizon` (and two more after it), as
    /// iCalendar readers expand the RRULE: in the zone of DTSTART, an `endDate` range inclusive in that
    /// zone.
    func patternOccurrences(
        rrule: String,
        recurrence: GraphPatternedRecurrence,
        times: EventEncoder.Times,
        until horizon: Int64
    ) -> [PatternOccurrence] {
        let zone = times.startZone
        let dayZone = allDayZone
        let localStart = times.isAllDay ? times.startDate : zone.localTime(at: times.start)
        // libical compares a UTC UNTIL with floating times as if they were UTC: leave UNTIL out and stop at
        // the end date here. COUNT stays, libical counts exactly.
        let withoutUntil = rrule.split(separator: ";").filter { !$0.hasPrefix("UNTIL=") }.joined(separator: ";")
        var lastDate: CivilDateTime?
        if recurrence.range?.type == "endDate", let text = recurrence.range?.endDate {
            lastDate = GraphTimestamp.parse(text)?.civil.date
        }
        // Graph's patterns give at most one occurrence a day, so this many cover the horizon and two more.
        let horizonDay = CivilDateTime(secondsSinceEpoch: horizon + 14 * 3600).daysSinceEpoch
        let days = max(0, horizonDay - localStart.daysSinceEpoch)
        let count = Int(min(days + 3, 2_000_000))
        let allDayLength = max(1, Int(times.endDate.daysSinceEpoch - times.startDate.daysSinceEpoch))
        var result: [PatternOccurrence] = []
        for local in RecurrenceMapping.occurrences(
            rrule: withoutUntil, start: localStart, isAllDay: times.isAllDay, count: count)
        {
            if let lastDate, local.date > lastDate { break }
            if times.isAllDay {
                let day = local.date.daysSinceEpoch
                result.append(
                    PatternOccurrence(
                        key: day, start: dayZone.instant(forLocal: local.date),
                        end: dayZone.instant(forLocal: local.date.adding(days: allDayLength))))
            } else {
                let start = zone.instant(forLocal: local)
                result.append(
                    PatternOccurrence(
                        key: start, start: start, end: start + (times.end - times.start),
                        inGap: zone.instants(forLocal: local).isEmpty))
            }
        }
        return result
    }

    /// The zone an all-day series' days are placed in, as the exported range is: the mailbox zone
    /// (`--tz`), else UTC.
    var allDayZone: ResolvedZone { options.fallbackZone ?? .utc }

    /// The day an all-day occurrence's original start names: Graph gives midnight of that day in UTC or
    /// in a zone; the nearest midnight in `zone` decides.
    static func day(of instant: Int64, in zone: ResolvedZone) -> Int64 {
        if instant % 86_400 == 0 { return instant / 86_400 }
        let local = zone.localTime(at: instant).secondsSinceEpoch + 43_200
        return local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
    }

    /// `text` (a VEVENT) with `lines` added after its last property: before its first VALARM, else before
    /// `END:VEVENT`.
    static func splice(_ lines: [UInt8], into text: [UInt8]) -> [UInt8] {
        guard !lines.isEmpty else { return text }
        let alarm = Array("\r\nBEGIN:VALARM\r\n".utf8)
        var at = max(0, text.count - "END:VEVENT\r\n".utf8.count)
        if text.count >= alarm.count {
            for index in 0...(text.count - alarm.count) where text[index] == alarm[0] {
                if text[index..<(index + alarm.count)].elementsEqual(alarm) {
                    at = index + 2
                    break
                }
            }
        }
        var result: [UInt8] = []
        result.reserveCapacity(text.count + lines.count)
        result += text[..<at]
        result += lines
        result += text[at...]
        return result
    }
}
