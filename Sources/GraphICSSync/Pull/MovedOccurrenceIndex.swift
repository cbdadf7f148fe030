import Foundation
import GraphICS
import GraphICSMirror
import ICalBridge

/// The single events the import or sync's push made of occurrences Graph refused to move past a neighbour's
/// day (``DeltaEntryShape/isMovedOccurrence``), as the calendar's mirror stores them, by the id of the series
/// their transactionId names. Graph's instances of a series do not list them, and no page documents a
/// `$filter` on `transactionId`, so they are found in the mirror: the pull adds them to their series' files,
/// the push changes them when their override changed.
///
/// The mirror is read when a series is first asked about, once per window (a round's window; the pattern's
/// own span of a series outside it), and indexed by series: a round with many changed series reads it once.
/// Not thread-safe: one pull or push uses it.
final class MovedOccurrenceIndex {
    /// Every event the mirror stores over a window (``CalendarMirror/storedEvents(in:)``).
    private let load: (SyncWindow) throws -> [MirrorEvent]
    private var read: [(window: SyncWindow, bySeries: [String: [MirrorEvent]])] = []

    /// Every instant: for a look-up that is not about a window (the push's).
    static let anyTime = SyncWindow(start: .min, end: .max)

    init(load: @escaping (SyncWindow) throws -> [MirrorEvent]) {
        self.load = load
    }

    /// Only the events whose JSON holds a moved occurrence's transactionId are read from the mirror and
    /// decoded: decoding every event of the window took most of a first sync's or a changed series' time.
    convenience init(mirror: CalendarMirror) {
        self.init(load: { window in try mirror.storedEvents(in: window, containing: ImportIdentity.movedPrefix) })
    }

    /// The moved occurrences of series `id` the mirror holds over `window`, in the mirror's order.
    func events(ofSeries id: String, in window: SyncWindow = anyTime) throws -> [MirrorEvent] {
        if let known = read.first(where: { $0.window == window }) { return known.bySeries[id] ?? [] }
        var bySeries: [String: [MirrorEvent]] = [:]
        for event in try load(window) {
            let shape = DeltaEntryShape(event.raw)
            guard shape.isMovedOccurrence, let series = shape.seriesMasterID else { continue }
            bySeries[series, default: []].append(event)
        }
        read.append((window, bySeries))
        return bySeries[id] ?? []
    }
}

extension SyncState {
    /// The mirror of `calendar` that `pairing` reads (the calendar's, shared with `serve`), in the state folder
    /// beside the state database.
    func mirror(of calendar: MirrorCalendar, for pairing: SyncPairing, client: GraphClient) -> CalendarMirror {
        CalendarMirror(
            directory: (database.path as NSString).deletingLastPathComponent, account: pairing.key.account,
            calendar: calendar, client: client)
    }
}
