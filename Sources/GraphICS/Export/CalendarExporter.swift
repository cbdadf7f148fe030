import Foundation
import ICalBridge

/// The work of `graph-ics export`: reads a range of a calendar from Microsoft Graph and writes it as one
/// VCALENDAR.
///
/// Graph's calendarView pages (up to 1000 events each, long ranges in windows, see
/// ``GraphClient/calendarView(calendarID:start:end:pageSize:onPage:)``) go straight into a
/// ``GraphToICS/PageStream`` as they arrive: each is converted on all cores while the next is fetched and
/// spooled, so memory stays flat however many events there are, and nothing reaches the sink before
/// every page is in. With ``GraphToICS/RecurrenceStyle/series`` the masters of the series seen are then
/// fetched (`GET events/{seriesMasterId}`, up to four at once) and, where an occurrence of a pattern is
/// missing, the series' instances around it (`GET events/{id}/instances`), so that EXDATEs name only
/// occurrences that are really gone.
///
/// Thread-safety: an exporter may be shared; each ``export(_:into:progress:)`` call blocks its thread.
public struct CalendarExporter: Sendable {
    /// What to export.
    public struct Request: Sendable {
        /// The calendar's id; nil for the mailbox's default calendar.
        public var calendarID: String?
        /// The first instant of the range.
        public var start: Date
        /// The instant after the range (exclusive).
        public var end: Date
        /// Occurrences as events of their own, or each series once.
        public var recurrence: GraphToICS.RecurrenceStyle
        /// The fallback zone (`--tz` or the mailbox's), the DTSTAMP and the name in diagnostics.
        public var options: ExportOptions
        /// Events per calendarView page (`$top`, at most 1000).
        public var pageSize: Int
        /// Where the unlinked spool files go (`$TMPDIR` or `/tmp` by default).
        public var spoolDirectory: String?
        /// Several calendars into one file, read in this order (``calendarID`` is then not used): each
        /// event says which it came from (`X-GRAPH-ICS-CALENDAR`), one that several hold is written once.
        /// Instances mode only.
        public var calendars: [Source] = []

        /// One calendar of several: its id and the name its events carry.
        public struct Source: Sendable, Equatable {
            public var id: String
            public var name: String

            public init(id: String, name: String) {
                self.id = id
                self.name = name
            }
        }

        public init(
            calendarID: String? = nil,
            start: Date,
            end: Date,
            recurrence: GraphToICS.RecurrenceStyle = .instances,
            options: ExportOptions,
            pageSize: Int = 1000,
            spoolDirectory: String? = nil
        ) {
            self.calendarID = calendarID
            self.start = start
            self.end = end
            self.recurrence = recurrence
            self.options = options
            self.pageSize = pageSize
            self.spoolDirectory = spoolDirectory
        }
    }

    /// How far an export has come, for a progress line.
    public struct Progress: Sendable, Equatable {
        /// calendarView pages received.
        public var pages: Int
        /// Events in the pages converted so far.
        public var events: Int
        /// Series mode: series masters read so far, and how many there are to read.
        public var seriesRead: Int
        public var seriesTotal: Int

        public init(pages: Int, events: Int, seriesRead: Int = 0, seriesTotal: Int = 0) {
            self.pages = pages
            self.events = events
            self.seriesRead = seriesRead
            self.seriesTotal = seriesTotal
        }
    }

    /// The client of the mailbox to read.
    public let client: GraphClient

    public init(client: GraphClient) {
        self.client = client
    }

    /// Reads the range and writes the calendar into `sink`.
    ///
    /// - Parameter progress: called on the calling thread after each page and each step of series work.
    /// - Returns: what was converted; events that could not be converted are in its diagnostics (named by
    ///   id and subject) and left out. When every event failed, nothing is written into `sink` (see
    ///   ``GraphToICS/Summary/wroteCalendar``).
    /// - Throws: ``GraphError`` or `AuthError` when Graph could not be read (after the client's retries);
    ///   ``ICalBridgeError`` when a page is not usable as a whole or writing fails. Nothing has been
    ///   written into `sink` then unless writing itself failed.
    public func export<Sink: ByteSink>(
        _ request: Request,
        into sink: inout Sink,
        progress: ((Progress) -> Void)? = nil
    ) throws -> GraphToICS.Summary {
        let range = Self.seconds(request.start)..<max(Self.seconds(request.start), Self.seconds(request.end))
        let stream = try GraphToICS.PageStream(
            options: request.options, recurrence: request.recurrence, range: range,
            spoolDirectory: request.spoolDirectory)
        do {
            let sources: [(id: String?, name: String?)] =
                request.calendars.isEmpty ? [(request.calendarID, nil)] : request.calendars.map { ($0.id, $0.name) }
            for source in sources {
                try client.calendarView(
                    calendarID: source.id, start: request.start, end: request.end, pageSize: request.pageSize
                ) { page in
                    try stream.add(page: page, calendar: source.name)
                    let done = stream.progress
                    progress?(Progress(pages: done.pages, events: done.events))
                }
            }
            if request.recurrence == .series {
                try completeSeries(stream, request: request, progress: progress)
            }
        } catch {
            // The page handed over last may still be converting on another thread, holding its bytes: it
            // finishes before the error is passed on, so that nothing runs on when the error ends the command.
            try? stream.settle()
            throw error
        }
        let summary = try stream.finish(into: &sink)
        let done = stream.progress
        progress?(Progress(pages: done.pages, events: done.events))
        return summary
    }

    /// Whole seconds since 1970 (rounded down).
    static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }
}
