import Foundation
import GraphICS
import GraphICSMirror
import ICalBridge

/// One item's file, exactly as `graph-ics export --recurrence series` writes that event or series: the
/// export's ``GraphToICS/PageStream`` fed with the item's events alone, so the bytes are the export's
/// (DTSTAMP from `lastModifiedDateTime`, deterministic order, VTIMEZONEs) and an unchanged event gives
/// the same file every time.
public struct PullItemEncoder: Sendable {
    public let client: GraphClient
    public let options: ExportOptions
    public let window: SyncWindow

    public init(client: GraphClient, options: ExportOptions, window: SyncWindow) {
        self.client = client
        self.options = options
        self.window = window
    }

    /// An encoded item: its bytes and the UIDs inside.
    public struct Encoded: Sendable {
        public var contents: Data
        /// The first UID.
        public var uid: String
        /// Every UID of its VEVENTs, once each, in order (one for an item a vdir file can hold).
        public var uids: [String]
        /// Its VEVENTs without RECURRENCE-ID (one: the single event or the series' master).
        public var masterCount: Int
    }

    /// Encodes a single event, or a series from its `master` (`GET events/{id}`) and its occurrences and
    /// exceptions in the window (all of them: the export's look-ups of moved occurrences inside the window
    /// are answered from them, and only those reaching outside it ask Graph); nil (with diagnostics) when it
    /// cannot be converted.
    ///
    /// `uid` (the item's recorded UID) stands in for Graph's `iCalUId` in every event given, master,
    /// occurrences and exceptions alike, whose UIDs the export derives from it: Graph gives an event created
    /// through its API (a file the push sent) an `iCalUId` of its own, and the file keeps the UID it had.
    public func encode(
        _ events: [Data], master: (id: String, json: Data)?, uid: String? = nil, diagnostics: inout [Diagnostic]
    ) throws -> Encoded? {
        var options = options
        options.eventUID = uid
        let stream = try GraphToICS.PageStream(
            options: options, recurrence: .series, range: window.start..<max(window.start, window.end))
        let occurrences = Self.page(events)
        try stream.add(page: occurrences)
        if let master {
            let client = client
            let window = window
            try stream.addSeries(id: master.id, master: master.json) { start, end, onPage in
                // The events are every occurrence and exception of the window: a look-up inside it is
                // answered from them, and Graph is asked only about instants outside it.
                guard start < window.start || end > window.end else { return try onPage(occurrences) }
                try client.instances(
                    seriesMasterID: master.id, start: Date(timeIntervalSince1970: TimeInterval(start)),
                    end: Date(timeIntervalSince1970: TimeInterval(end)), onPage: onPage)
            }
        }
        var buffer = ByteBuffer()
        let summary = try stream.finish(into: &buffer)
        diagnostics += summary.diagnostics
        guard summary.wroteCalendar, summary.written > 0, let uid = summary.uids.first else { return nil }
        return Encoded(
            contents: Data(buffer.bytes), uid: uid, uids: summary.uids, masterCount: summary.masterCount)
    }

    /// `{"value": [...]}` around the events' JSON.
    static func page(_ events: [Data]) -> Data {
        var page = Data(#"{"value":["#.utf8)
        for (index, event) in events.enumerated() {
            if index > 0 { page.append(UInt8(ascii: ",")) }
            page.append(event)
        }
        page.append(contentsOf: Array("]}".utf8))
        return page
    }
}
