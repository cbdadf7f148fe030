// How a test makes Outlook differ from what graph-ics imported, for `import --verify`: the event moved in
// Outlook after the import, exactly as ``changeEvent(id:_:)`` changes it (a new change key, the
// occurrences of a series moved with its master).
import Foundation

extension GraphStandIn {
    /// Moves an event by `seconds` (start and end alike) as its owner would by dragging it in Outlook.
    ///
    /// - Returns: the event as stored, rendered like ``event(id:)``.
    @discardableResult
    public func moveEvent(id: String, bySeconds seconds: Int) throws -> [String: Any] {
        let times: (start: Date, end: Date)? = locked { state in
            state.events[id].map { ($0.start, $0.end) }
        }
        guard let times else { throw SeedError(description: "no event \(id)") }
        func utc(_ date: Date) -> [String: Any] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate]
            formatter.timeZone = TimeZone(identifier: "UTC")
            return ["dateTime": formatter.string(from: date), "timeZone": "UTC"]
        }
        let shift = TimeInterval(seconds)
        return try changeEvent(
            id: id,
            ["start": utc(times.start.addingTimeInterval(shift)), "end": utc(times.end.addingTimeInterval(shift))])
    }
}
