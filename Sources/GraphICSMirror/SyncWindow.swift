import Foundation

/// A span of time a calendar is followed over (a mirror's, a sync pairing's, a feed's), in whole seconds
/// (UTC instants).
public struct SyncWindow: Equatable, Sendable {
    /// Seconds since 1970, start inclusive, end exclusive.
    public var start: Int64
    public var end: Int64

    public init(start: Int64, end: Int64) {
        self.start = start
        self.end = end
    }

    /// The whole seconds inside `start ..< end`: a fractional start rounds up and a fractional end down, so
    /// the stored window never claims more than the one Graph was asked for.
    public init(start: Date, end: Date) {
        self.start = Int64(start.timeIntervalSince1970.rounded(.up))
        self.end = Int64(end.timeIntervalSince1970.rounded(.down))
    }

    /// Whether this window contains all of `other` (then a delta link for this window serves it).
    public func covers(_ other: SyncWindow) -> Bool {
        start <= other.start && other.end <= end
    }

    /// The smallest window covering both.
    public func union(_ other: SyncWindow) -> SyncWindow {
        SyncWindow(start: min(start, other.start), end: max(end, other.end))
    }

    public var startDate: Date { Date(timeIntervalSince1970: TimeInterval(start)) }
    public var endDate: Date { Date(timeIntervalSince1970: TimeInterval(end)) }

    /// Whether an event from `start` to `end` (UTC instants) shows in this window: it overlaps it.
    public func overlaps(start eventStart: Int64, end eventEnd: Int64) -> Bool {
        eventStart < end && (eventEnd > start || (eventEnd == eventStart && eventStart >= start))
    }
}
