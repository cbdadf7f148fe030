import Dispatch
import Foundation
import Synchronization

extension GraphToICS {
    /// How `graph-ics export` writes recurring events.
    public enum RecurrenceStyle: String, Sendable, CaseIterable {
        /// Every occurrence and exception is a VEVENT of its own, with a UID of its own (see
        /// ``PageStream``).
        case instances
        /// Each series once: its master with RRULE and EXDATE, its exceptions as RECURRENCE-ID overrides,
        /// all under the master's UID.
        case series
    }

    /// The export conversion for Graph data that arrives page by page: each calendarView page is handed
    /// over as it comes, decoded and encoded on all cores while the next page is fetched, and spooled into
    /// a ``CalendarWriter``; ``finish(into:)`` then writes the whole calendar. Memory stays flat however
    /// many pages there are: at most two pages are held (the one being converted and the one being
    /// fetched), and the VEVENT text moves to an unlinked temporary file past 32 MB.
    ///
    /// Per-event problems are diagnostics exactly as for ``GraphToICS/convert(_:options:into:)``
    /// (which is this stream with one page): an event that cannot be converted is named by id and subject
    /// and left out, the rest goes through. A page that is not Graph JSON as a whole throws.
    ///
    /// **Instances** (the default): an occurrence or exception of a series becomes a standalone VEVENT.
    /// Graph may give every occurrence the series' `iCalUId`, so its UID is made unique, deterministically:
    /// the `iCalUId` (else the id), `-`, and the occurrence's `originalStart` in UTC as
    /// `YYYYMMDDTHHMMSSZ` (`040000008200E…-20261202T073000Z`). Exporting the same range twice gives the
    /// same UIDs.
    ///
    /// **Series**: occurrences are not written; each series is written once when its master is known —
    /// either a `seriesMaster` event in the pages, or the master the caller fetched and gave to
    /// ``addSeries(id:master:instances:)`` for each id of ``seriesAwaitingMaster()``. The master carries the
    /// RRULE of its `patternedRecurrence`; exceptions become overrides with `RECURRENCE-ID` (from their
    /// `originalStart`, in the form of the master's DTSTART) and the master's UID, and so does a single event
    /// the import made of an occurrence Graph refused to move past a neighbour's day (its transactionId names
    /// the series and the original start, ``ImportIdentity/movedOccurrence(of:)``); an occurrence the
    /// pattern produces in the range but Graph no longer returns (deleted or cancelled by the organizer),
    /// or returns marked `isCancelled` (unless the whole series is), becomes an EXDATE. Before writing an EXDATE the stream asks the caller's `instances` look-up once
    /// per series whether that occurrence was moved out of the range (an exception); Exchange does not let
    /// an occurrence move across an adjacent one, so the look-up window reaches from two occurrences
    /// before the first missing one to two after the last. When a series cannot be written exactly (no
    /// master, a pattern iCalendar cannot hold, an occurrence the pattern does not produce), its
    /// occurrences are written as instances instead, with a warning.
    ///
    /// Not thread-safe: one thread calls it (the pages are converted on other threads internally).
    public final class PageStream {
        let options: ExportOptions
        let style: RecurrenceStyle
        let range: Range<Int64>?
        let encoder: EventEncoder
        let writer: CalendarWriter
        /// Series mode: instance encodings of occurrences, used only when their series falls back.
        let fallbackSpool: SpoolFile
        var diagnostics: [Diagnostic] = []
        var series: [String: SeriesState] = [:]
        /// Series ids in the order they were first seen.
        var seriesOrder: [String] = []
        /// Instances mode, several calendars in one file: the UID and start of each event written, so that
        /// an event a second calendar holds too (a meeting in a shared calendar) is written once.
        var written: Set<String>?
        private var job: DispatchGroup?
        private var failure: ICalBridgeError?
        private let queue = DispatchQueue(label: "graph-ics.page-stream")
        /// Pages handed over and events converted, read by other threads for progress.
        private let counts = Mutex((pages: 0, events: 0))

        /// - Parameters:
        ///   - options: the fallback zone (`--tz` or the mailbox zone), DTSTAMP and the name used in
        ///     diagnostics.
        ///   - recurrence: how occurrences of series are written.
        ///   - range: the exported instants, `[start, end)` in seconds since 1970 (series mode needs it for
        ///     EXDATEs; without it no EXDATE is written).
        ///   - spoolDirectory: where the unlinked spool files live (`$TMPDIR` or `/tmp` by default).
        public init(
            options: ExportOptions,
            recurrence: RecurrenceStyle = .instances,
            range: Range<Int64>? = nil,
            spoolDirectory: String? = nil
        ) throws(ICalBridgeError) {
            self.options = options
            self.style = recurrence
            self.range = range
            self.encoder = EventEncoder(options: options)
            self.writer = try CalendarWriter(calendarName: options.calendarName, spoolDirectory: spoolDirectory)
            self.fallbackSpool = try SpoolFile(directory: spoolDirectory, memoryLimit: 8 << 20)
        }

        /// Pages handed over so far, and the event objects in those of them already converted. Safe to
        /// read at any time (for progress output); it does not wait for the page being converted.
        public var progress: (pages: Int, events: Int) { counts.withLock { $0 } }

        /// Hands over one page (a calendarView or instances response, `{"value": [...]}`, or any shape
        /// ``GraphEventDocument`` reads). Its conversion runs in the background while the caller fetches
        /// the next page; this call first waits for the previous page.
        ///
        /// - Throws: ``ICalBridgeError`` when an earlier page was not usable as a whole or spooling failed;
        ///   the stream is then dead and every later call throws the same error.
        ///
        /// - Parameter calendar: the calendar the page comes from, written on each of its VEVENTs as
        ///   `X-GRAPH-ICS-CALENDAR` (``ExportOptions/eventCalendar``); an event already written from an
        ///   earlier calendar (same UID and start) is then left out. Nil: the stream's own options.
        public func add(page data: Data, calendar: String? = nil) throws(ICalBridgeError) {
            try settle()
            var encoder = self.encoder
            if let calendar {
                var options = self.options
                options.eventCalendar = calendar
                encoder = EventEncoder(options: options)
                if written == nil { written = [] }
            }
            counts.withLock { $0.pages += 1 }
            let group = DispatchGroup()
            // The stream is used by one thread at a time: the caller touches it again only after
            // `settle()` has waited for this job.
            nonisolated(unsafe) let stream = self
            let pageEncoder = encoder
            queue.async(group: group) {
                do throws(ICalBridgeError) {
                    try stream.consume(data, encoder: pageEncoder)
                } catch {
                    stream.failure = error
                }
            }
            job = group
        }

        /// Waits for the page being converted; rethrows what went wrong with it. A caller that gives up on
        /// the stream (fetching the next page failed) calls it too, so that no conversion is still running,
        /// holding its page, when the error ends the command.
        public func settle() throws(ICalBridgeError) {
            if let job {
                job.wait()
                self.job = nil
            }
            if let failure { throw failure }
        }

        /// Series mode: the ids of the series seen in the pages whose master is neither in the pages nor
        /// given yet, in the order they were first seen. Waits for the page being converted.
        public func seriesAwaitingMaster() throws(ICalBridgeError) -> [String] {
            try settle()
            return seriesOrder.filter { series[$0]?.isOpen == true && series[$0]?.master == nil }
        }

        /// Series mode: writes the series `id` with its master, as Graph returned it for `GET
        /// events/{id}` (`nil` when it could not be read: the series is then written as instances, with a
        /// warning).
        ///
        /// - Parameter instances: the occurrences and exceptions of the series between two instants (seconds
        ///   since 1970), page by page (Graph's `events/{id}/instances`); asked at most once, only when an
        ///   occurrence of the pattern in the range is missing. `nil` writes such occurrences as EXDATEs
        ///   without asking.
        /// - Throws: what `instances` throws; ``ICalBridgeError`` as for ``add(page:)``.
        public func addSeries(
            id: String,
            master: Data?,
            instances: ((_ start: Int64, _ end: Int64, _ onPage: (Data) throws -> Void) throws -> Void)?
        ) throws {
            try settle()
            guard series[id]?.isOpen == true else { return }
            var event: GraphEvent?
            if let master {
                do {
                    let document = try GraphEventDocument.decode(master, file: options.file)
                    event = document.events.first?.withUID(options.eventUID)
                    diagnostics += document.diagnostics
                } catch {
                    diagnostics.append(
                        Diagnostic(
                            .warning, "the series master's JSON is not usable (\(error.message))",
                            file: options.file, eventID: id))
                }
            }
            try completeSeries(id, master: event, instances: instances)
        }

        /// Writes the calendar into `sink`: series not written yet first (with a master from the pages, or
        /// as instances), then the header, VTIMEZONEs and every VEVENT in order.
        ///
        /// - Throws: ``ICalBridgeError`` when a page was not usable or writing fails. When every event
        ///   failed, nothing is written (see ``Summary/wroteCalendar``).
        public func finish<Sink: ByteSink>(into sink: inout Sink) throws(ICalBridgeError) -> Summary {
            try settle()
            for id in seriesOrder where series[id]?.isOpen == true {
                do {
                    try completeSeries(id, master: series[id]?.master, instances: nil)
                } catch let error as ICalBridgeError {
                    throw error
                } catch {
                    throw ICalBridgeError(.io, "writing series \(id) failed: \(error)")
                }
            }
            let failed = diagnostics.contains { $0.severity == .error }
            let write = writer.count > 0 || !failed
            if write { try writer.finish(into: &sink) }
            let shape = writer.shape
            return Summary(
                inputEvents: progress.events, written: writer.count, diagnostics: diagnostics,
                wroteCalendar: write, uids: shape.uids, masterCount: shape.masterCount)
        }

        // MARK: Converting one page

        /// Events parsed and encoded together; small enough to keep memory flat, large enough to keep the
        /// cores busy.
        static let batchSize = 512

        /// Reads one page and spools its events in input order. The reading thread only checks each
        /// event's syntax and finds where it ends; batches are parsed and encoded on all cores while the
        /// next batch is found. Memory holds two batches however large the input is.
        func consume(_ data: Data, encoder: EventEncoder) throws(ICalBridgeError) {
            var pageDiagnostics: [Diagnostic] = []
            var spoolError: ICalBridgeError?
            var batch: [UnparsedEvent] = []
            batch.reserveCapacity(Self.batchSize)
            var inFlight: (done: DispatchGroup, box: ItemBatch)?
            let style = self.style
            let file = options.file
            func spool(_ items: [Item]) {
                for item in items {
                    do throws(ICalBridgeError) {
                        try record(item, diagnostics: &pageDiagnostics)
                    } catch {
                        if spoolError == nil { spoolError = error }
                    }
                }
            }
            func drain() {
                guard let (done, box) = inFlight else { return }
                done.wait()
                inFlight = nil
                spool(box.items.withLock { $0 })
            }
            func submit() {
                let events = batch
                batch.removeAll(keepingCapacity: true)
                let box = ItemBatch()
                let done = DispatchGroup()
                DispatchQueue.global().async(group: done) {
                    let items = Parallel.map(count: events.count) {
                        Self.prepare(GraphEventDocument.parse(events[$0], file: file), encoder: encoder, style: style)
                    }
                    box.items.withLock { $0 = items }
                }
                drain()
                inFlight = (done, box)
            }
            let (count, readingDiagnostics) = try GraphEventDocument.forEachUnparsedEvent(
                in: data,
                file: file,
                parsed: { event in spool([Self.prepare(.event(event), encoder: encoder, style: style)]) },
                deferred: { event in
                    batch.append(event)
                    if batch.count == Self.batchSize { submit() }
                },
                finish: {
                    if !batch.isEmpty { submit() }
                    drain()
                }
            )
            if let spoolError { throw spoolError }
            diagnostics += readingDiagnostics + pageDiagnostics
            counts.withLock { $0.events += count }
        }

        /// Makes room for about `bytes` of VEVENT text (a whole input converted at once).
        func reserveCapacity(_ bytes: Int) {
            writer.reserveCapacity(bytes)
        }

        /// What one event of a page becomes.
        enum Item: Sendable {
            /// A VEVENT to write now (nil when it failed), with its diagnostics.
            case encoded(EncodedEvent?, [Diagnostic])
            /// Series mode: an occurrence, known by its original start; its instance encoding is kept in
            /// case the series cannot be written as one.
            /// `isLeftOut`: the selection leaves it out (an EXDATE when the series is written as one).
            case occurrence(
                series: String, originalStart: Int64, isCancelled: Bool, isLeftOut: Bool, fallback: EncodedEvent?,
                [Diagnostic])
            /// Series mode: an exception, written when its master is known.
            case exception(series: String, originalStart: Int64, GraphEvent)
            /// Series mode: a series master in the pages.
            case master(id: String, GraphEvent)
        }

        /// Decides what an event becomes and encodes it (any thread).
        static func prepare(_ parsed: ParsedEvent, encoder: EventEncoder, style: RecurrenceStyle) -> Item {
            let event: GraphEvent
            switch parsed {
            case .failed(let diagnostic): return .encoded(nil, [diagnostic])
            case .event(let decoded): event = decoded.withUID(encoder.options.eventUID)
            }
            switch style {
            case .instances:
                let (encoded, diagnostics) = encodeInstance(event, encoder: encoder)
                return .encoded(encoded, diagnostics)
            case .series:
                let master = event.seriesMasterId.flatMap { $0.isEmpty ? nil : $0 }
                switch event.type {
                case "seriesMaster":
                    guard let id = event.id, !id.isEmpty else { break }
                    return .master(id: id, event)
                case "occurrence":
                    guard let master, let original = originalStart(of: event) else { break }
                    let (encoded, diagnostics) = encodeInstance(event, encoder: encoder)
                    return .occurrence(
                        series: master, originalStart: original, isCancelled: event.isCancelled == true,
                        isLeftOut: encoder.options.selection.apply(to: event) == nil, fallback: encoded, diagnostics)
                case "exception":
                    guard let master, let original = originalStart(of: event) else { break }
                    return .exception(series: master, originalStart: original, event)
                default:
                    // An occurrence the import moved past a neighbour's day, which Graph holds as an event of
                    // its own: written back inside its series as the override it came from.
                    if let moved = ImportIdentity.movedOccurrence(of: event) {
                        return .exception(series: moved.seriesID, originalStart: moved.originalStart, event)
                    }
                }
                let (encoded, diagnostics) = encodeInstance(event, encoder: encoder)
                return .encoded(encoded, diagnostics)
            }
        }

        /// Encodes an event as a standalone VEVENT; occurrences and exceptions get their own UID.
        static func encodeInstance(_ event: GraphEvent, encoder: EventEncoder) -> (EncodedEvent?, [Diagnostic]) {
            var event = event
            if let uid = instanceUID(of: event) { event.iCalUId = uid }
            var diagnostics: [Diagnostic] = []
            let encoded = encodeSelected(event, encoder: encoder, diagnostics: &diagnostics)
            return (encoded, diagnostics)
        }

        /// Encodes the event as the export's selection (``ExportOptions/selection``) shows it: every event
        /// the stream writes goes through here. Nil without a diagnostic when the selection leaves it out.
        /// Diagnostics name the event as Graph has it (its id and subject), for whoever runs the export.
        static func encodeSelected(_ event: GraphEvent, encoder: EventEncoder, diagnostics: inout [Diagnostic])
            -> EncodedEvent?
        {
            let selection = encoder.options.selection
            guard !selection.isEverything else { return encoder.encode(event, diagnostics: &diagnostics) }
            guard let shown = selection.apply(to: event) else { return nil }
            var found: [Diagnostic] = []
            let encoded = encoder.encode(shown, diagnostics: &found)
            for var diagnostic in found {
                diagnostic.eventID = event.id ?? event.iCalUId
                diagnostic.subject = event.subject
                diagnostics.append(diagnostic)
            }
            return encoded
        }

        /// `iCalUId-YYYYMMDDTHHMMSSZ` (the original start in UTC) for an occurrence or exception; nil for
        /// other events and when neither a UID nor an original start is known.
        static func instanceUID(of event: GraphEvent) -> String? {
            guard event.type == "occurrence" || event.type == "exception" else { return nil }
            let base = [event.iCalUId, event.id].compactMap { $0.map(ICalText.singleLine) }.first { !$0.isEmpty }
            guard let base, let original = originalStart(of: event) else { return nil }
            return base + "-" + compactUTC(original)
        }

        /// The instant of an occurrence's `originalStart` (Graph writes it in UTC); for an occurrence
        /// without one, its start, which is the same.
        static func originalStart(of event: GraphEvent) -> Int64? {
            if let text = event.originalStart, let stamp = GraphTimestamp.parse(text) {
                return stamp.instant ?? stamp.civil.secondsSinceEpoch
            }
            guard event.type == "occurrence", let text = event.start?.dateTime, let stamp = GraphTimestamp.parse(text)
            else { return nil }
            if let instant = stamp.instant { return instant }
            switch ZoneResolver.resolve(event.start?.timeZone ?? "UTC") {
            case .resolved(let zone, _): return zone.instant(forLocal: stamp.civil)
            default: return nil
            }
        }

        /// `20261202T073000Z`.
        static func compactUTC(_ instant: Int64) -> String {
            let time = CivilDateTime(secondsSinceEpoch: instant)
            return CivilDateTime.pad(time.year, 4) + CivilDateTime.pad(time.month, 2) + CivilDateTime.pad(time.day, 2)
                + "T" + CivilDateTime.pad(time.hour, 2) + CivilDateTime.pad(time.minute, 2)
                + CivilDateTime.pad(time.second, 2) + "Z"
        }

        /// Spools or files one item (the stream's thread).
        func record(_ item: Item, diagnostics: inout [Diagnostic]) throws(ICalBridgeError) {
            switch item {
            case .encoded(let encoded, let found):
                diagnostics += found
                if let encoded, written?.insert("\(encoded.sortStart) \(encoded.uid)").inserted ?? true {
                    try writer.add(encoded)
                }
            case .occurrence(let id, let original, let isCancelled, let isLeftOut, let fallback, let found):
                var spooled: SpooledEvent?
                if let fallback {
                    let offset = try fallbackSpool.append(fallback.text)
                    spooled = SpooledEvent(
                        offset: offset, length: fallback.text.count, uid: fallback.uid, sortStart: fallback.sortStart,
                        zoneUses: fallback.zoneUses)
                }
                updateSeries(id) { state in
                    state.seen.append(original)
                    if isCancelled { state.cancelled.append(original) }
                    if isLeftOut { state.leftOut.append(original) }
                    state.fallback.append(FallbackOccurrence(event: spooled, diagnostics: found))
                }
            case .exception(let id, let original, let event):
                updateSeries(id) { state in
                    state.seen.append(original)
                    state.exceptions.append((original, event))
                }
            case .master(let id, let event):
                updateSeries(id) { $0.master = event }
            }
        }

        func updateSeries(_ id: String, _ change: (inout SeriesState) -> Void) {
            if series[id] == nil { seriesOrder.append(id) }
            change(&series[id, default: SeriesState()])
        }
    }
}

/// The items of one batch, handed from the encoding task to the stream.
private final class ItemBatch: Sendable {
    let items = Mutex<[GraphToICS.PageStream.Item]>([])
}

extension GraphEvent {
    /// The event with `iCalUId` set to `uid` (``ExportOptions/eventUID``); as it is without one.
    func withUID(_ uid: String?) -> GraphEvent {
        guard let uid else { return self }
        var event = self
        event.iCalUId = uid
        return event
    }
}
