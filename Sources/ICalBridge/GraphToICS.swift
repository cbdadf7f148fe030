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
        let document = try GraphEventDocument.decode(data, file: options.file)
        var diagnostics = document.diagnostics
        let encoder = EventEncoder(options: options)
        let writer = try CalendarWriter()
        for event in document.events {
            if let encoded = encoder.encode(event, diagnostics: &diagnostics) {
                try writer.add(encoded)
            }
        }
        let failed = diagnostics.contains { $0.severity == .error }
        let write = writer.count > 0 || !failed
        if write { try writer.finish(into: &sink) }
        return Summary(
            inputEvents: document.count, written: writer.count, diagnostics: diagnostics, wroteCalendar: write)
    }
}
