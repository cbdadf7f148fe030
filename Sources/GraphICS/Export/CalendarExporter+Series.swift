import Foundation
import ICalBridge

// Series mode: the masters of the series calendarView showed, and the instances around missing occurrences.
extension CalendarExporter {
    /// The most master reads in flight at once (Graph's per-mailbox limit; the client's limiter enforces
    /// it anyway).
    static let masterReaders = 4

    /// Fetches the master of every series the pages showed and hands each to `stream`, asking Graph for
    /// a series' instances only when an occurrence of its pattern is missing from the range.
    func completeSeries(
        _ stream: GraphToICS.PageStream,
        request: Request,
        progress: ((Progress) -> Void)?
    ) throws {
        let ids = try stream.seriesAwaitingMaster()
        guard !ids.isEmpty else { return }
        let done = stream.progress
        progress?(Progress(pages: done.pages, events: done.events, seriesRead: 0, seriesTotal: ids.count))
        let masters = try fetchMasters(ids)
        for (index, id) in ids.enumerated() {
            try stream.addSeries(id: id, master: masters[id] ?? nil) { start, end, onPage in
                try client.instances(
                    seriesMasterID: id,
                    start: Date(timeIntervalSince1970: TimeInterval(start)),
                    end: Date(timeIntervalSince1970: TimeInterval(end)),
                    pageSize: request.pageSize,
                    onPage: onPage)
            }
            progress?(
                Progress(pages: done.pages, events: done.events, seriesRead: index + 1, seriesTotal: ids.count))
        }
    }

    /// `GET events/{id}` for each id, up to ``masterReaders`` at once. A master Graph no longer has (404)
    /// is nil: its series is then exported as single occurrences. Any other failure is thrown (the first
    /// one, after the reads under way have finished). `sync`'s pull reads the masters of the series it
    /// writes through this too.
    public func fetchMasters(_ ids: [String]) throws -> [String: Data?] {
        let client = client
        let found = try Parallel.blockingMap(count: ids.count, workers: Self.masterReaders) { index -> Data? in
            do {
                return try client.event(id: ids[index])
            } catch let error as GraphError where error.kind == .notFound {
                return nil
            }
        }
        return Dictionary(zip(ids, found)) { first, _ in first }
    }
}
