import Foundation
import GraphICS
import ICalBridge

/// Renders a feed's events into its body: the events as one Graph page through the export's own
/// ``GraphToICS/PageStream`` (occurrences as instances, the feed's selection applied), so a feed holds the
/// bytes `graph-ics export` writes for the same window and detail, and nothing is encoded a second way.
enum FeedRenderer {
    struct Rendering {
        var body: Data
        var eventCount: Int
        var diagnostics: [Diagnostic]
    }

    /// The export's settings for the feed.
    static func options(for target: FeedTarget) -> ExportOptions {
        ExportOptions(
            fallbackZone: target.zone, file: "feed \(target.definition.name)", calendarName: target.calendarName,
            selection: target.definition.selection)
    }

    /// - Throws: ``ICalBridgeError`` when the page cannot be converted at all or no event of it could (then
    ///   no body is better than an empty one: the last good body stays).
    static func render(_ events: FeedEvents, for target: FeedTarget) throws -> Rendering {
        let stream = try GraphToICS.PageStream(
            options: options(for: target), recurrence: .instances, range: events.window.start..<events.window.end)
        try stream.add(page: events.page())
        var buffer = ByteBuffer()
        let summary = try stream.finish(into: &buffer)
        guard summary.wroteCalendar else {
            // Only a count: the status this becomes is shown on /healthz, which shows neither feed names nor
            // event contents.
            let failed = summary.diagnostics.filter { $0.severity == .error }.count
            throw ICalBridgeError(
                .badInput, "none of the \(failed) events of the feed could be converted")
        }
        return Rendering(body: Data(buffer.bytes), eventCount: summary.written, diagnostics: summary.diagnostics)
    }

    /// The strong ETag of a body: `"<SHA-256 in hex>"`.
    static func etag(of body: Data) -> String {
        "\"" + SHA256.hexDigest(body) + "\""
    }
}
