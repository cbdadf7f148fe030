import Foundation
import GraphICS
import ICalBridge

/// One item's file, exactly as `graph-ics export --recurrence series` writes that event or series: the
/// export's ``GraphToICS/PageStream`` fed with the item's events alone, so the bytes are the export's
/// (DTSTAMP from `lastModifiedDateTime`, deterministic order, VTIMEZONEs) and an unchanged event gives
/// the same file every time.
struct PullItemEncoder {
    let client: GraphClient
    let options: ExportOptions
    let window: SyncWindow

    /// An encoded item: its bytes and the UID inside.
    struct Encoded {
        var contents: Data
        var uid: String
    }

    /// Encodes a single event, or a series from its `master` (`GET events/{id}`) and its occurrences and
    /// exceptions in the window; nil (with diagnostics) when it cannot be converted.
    func encode(_ events: [Data], master: (id: String, json: Data)?, diagnostics: inout [Diagnostic]) throws
        -> Encoded?
    {
        let stream = try GraphToICS.PageStream(
            options: options, recurrence: .series, range: window.start..<max(window.start, window.end))
        try stream.add(page: Self.page(events))
        if let master {
            let client = client
            try stream.addSeries(id: master.id, master: master.json) { start, end, onPage in
                try client.instances(
                    seriesMasterID: master.id, start: Date(timeIntervalSince1970: TimeInterval(start)),
                    end: Date(timeIntervalSince1970: TimeInterval(end)), onPage: onPage)
            }
        }
        var buffer = ByteBuffer()
        let summary = try stream.finish(into: &buffer)
        diagnostics += summary.diagnostics
        guard summary.wroteCalendar, summary.written > 0, let uid = Self.uid(in: buffer.bytes) else { return nil }
        return Encoded(contents: Data(buffer.bytes), uid: uid)
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

    /// The value of the first UID line (unfolded) of an iCalendar text.
    static func uid(in bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        let unfolded = text.replacingOccurrences(of: "\r\n ", with: "").replacingOccurrences(of: "\r\n\t", with: "")
        for line in unfolded.split(separator: "\r\n") where line.hasPrefix("UID:") {
            return String(line.dropFirst(4))
        }
        return nil
    }
}
