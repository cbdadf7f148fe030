import Foundation

/// The export conversion in one call: Graph JSON in, a VCALENDAR out.
///
/// Used by `graph-ics convert`; `graph-ics export` feeds Graph's pages one by one into a
/// ``GraphToICS/PageStream``, which this is with a single page.
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
        /// The UIDs of the VEVENTs written, once each, in the order written.
        public var uids: [String] = []
        /// The VEVENTs written without RECURRENCE-ID (single events, series masters, instances).
        public var masterCount = 0
    }

    /// Converts the Graph JSON `data` (named `options.file` in diagnostics) into `sink`.
    ///
    /// Occurrences and exceptions of series become standalone VEVENTs with UIDs of their own (see
    /// ``GraphToICS/PageStream``); a series master in the input is written with its RRULE.
    ///
    /// - Throws: ``ICalBridgeError`` when the input as a whole is unusable or writing fails. Problems
    ///   with single events are in the summary's diagnostics; those events are left out. When every
    ///   event failed, nothing is written (see ``Summary/wroteCalendar``).
    public static func convert<Sink: ByteSink>(
        _ data: Data,
        options: ExportOptions,
        into sink: inout Sink
    ) throws(ICalBridgeError) -> Summary {
        let stream = try PageStream(options: options)
        // VEVENT text is typically about 60 % of Graph's JSON for the same events.
        stream.reserveCapacity(data.count * 2 / 3)
        try stream.consume(data, encoder: stream.encoder)
        return try stream.finish(into: &sink)
    }
}
