import Dispatch
import Foundation

/// The export conversion in one call: Graph JSON in, a VCALENDAR out.
///
/// Used by `graph-ics convert`; the fetch layer uses ``EventEncoder`` and ``CalendarWriter`` directly to
/// stream page by page.
public enum GraphToICS {
    /// The outcome of a conversion.
    public struct Summary: Sendable {
        /// Event objects in the input.
        public var inputEvents: Int
        /// VEVENTs written.
        public var written: Int
        public var diagnostics: [Diagnostic]
        /// False when no event converted and some failed: then nothing was written into the sink, so
        /// that a caller never replaces a good file with an empty calendar.
        public var wroteCalendar: Bool
    }

    /// Events encoded together; small enough to keep memory flat, large enough to keep the cores busy.
    static let batchSize = 512

    /// Converts the Graph JSON `data` (named `options.file` in diagnostics) into `sink`.
    ///
    /// - Throws: ``ICalBridgeError`` when the input as a whole is unusable or writing fails. Problems
    ///   with single events are in the summary's diagnostics; those events are left out. When every
    ///   event failed, nothing is written (see ``Summary/wroteCalendar``).
    public static func convert<Sink: ByteSink>(
        _ data: Data,
        options: ExportOptions,
        into sink: inout Sink
    ) throws(ICalBridgeError) -> Summary {
        let encoder = EventEncoder(options: options)
        let writer = try CalendarWriter()
        // VEVENT text is typically about 60 % of Graph's JSON for the same events.
        writer.reserveCapacity(data.count * 2 / 3)
        var encodingDiagnostics: [Diagnostic] = []
        var spoolError: ICalBridgeError?
        // The reading thread only checks each event's syntax and finds where it ends; batches of events
        // are parsed and encoded on all cores while the next batch is found, then spooled in input order.
        // Memory holds two batches however large the input is.
        var batch: [UnparsedEvent] = []
        batch.reserveCapacity(Self.batchSize)
        var inFlight: (done: DispatchGroup, box: EncodedBatch)?
        func spool(_ results: [(EncodedEvent?, [Diagnostic])]) {
            for (encoded, diagnostics) in results {
                encodingDiagnostics += diagnostics
                guard spoolError == nil, let encoded else { continue }
                do throws(ICalBridgeError) {
                    try writer.add(encoded)
                } catch {
                    spoolError = error
                }
            }
        }
        func drain() {
            guard let (done, box) = inFlight else { return }
            done.wait()
            inFlight = nil
            spool(box.results)
        }
        func submit() {
            let events = batch
            batch.removeAll(keepingCapacity: true)
            let box = EncodedBatch()
            let done = DispatchGroup()
            let file = options.file
            DispatchQueue.global().async(group: done) {
                box.results = encoder.encode(count: events.count) { GraphEventDocument.parse(events[$0], file: file) }
            }
            drain()
            inFlight = (done, box)
        }
        let (count, readingDiagnostics) = try GraphEventDocument.forEachUnparsedEvent(
            in: data,
            file: options.file,
            parsed: { event in
                var diagnostics: [Diagnostic] = []
                let encoded = encoder.encode(event, diagnostics: &diagnostics)
                spool([(encoded, diagnostics)])
            },
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
        let diagnostics = readingDiagnostics + encodingDiagnostics
        let failed = diagnostics.contains { $0.severity == .error }
        let write = writer.count > 0 || !failed
        if write { try writer.finish(into: &sink) }
        return Summary(
            inputEvents: count, written: writer.count, diagnostics: diagnostics, wroteCalendar: write)
    }
}

/// The results of one batch, handed from the encoding task to the writer; read only after the task's
/// group has been waited for.
private final class EncodedBatch: @unchecked Sendable {
    var results: [(EncodedEvent?, [Diagnostic])] = []
}
