// How tests change a calendar "in Outlook" between two runs of graph-ics: server-side edits and deletions
// that give events new versions exactly as writes through Graph do, so that delta rounds, etags and
// `If-Match` see them. A deletion tells nobody.
import Foundation

extension GraphStandIn {
    /// Changes an event as its owner would in Outlook: merges `changes` (Graph JSON properties; `start` and
    /// `end` as `dateTimeTimeZone` objects move it), with a new change key and `lastModifiedDateTime`. An
    /// occurrence becomes an exception; a master's plain property changes reach the occurrences not changed
    /// on their own (its recurrence cannot be changed here: PATCH it through Graph).
    ///
    /// - Returns: the event as stored, rendered like ``event(id:)``.
    @discardableResult
    public func changeEvent(id: String, _ changes: [String: Any]) throws -> [String: Any] {
        guard changes["recurrence"] == nil else {
            throw SeedError(description: "changeEvent cannot change a recurrence; PATCH event \(id) instead")
        }
        let stored: StoredEvent = try locked { state in
            guard let event = state.events[id] else { throw SeedError(description: "no event \(id)") }
            let update = try Self.outlookUpdate(changes, of: event)
            let changed = Self.store(update, to: event, in: &state, now: Date())
            return changed
        }
        return render(stored, preferredZone: nil, bodyType: nil, expand: true)
    }

    /// Deletes an event as its owner would in Outlook, without telling attendees: a master with its
    /// occurrences and exceptions; an occurrence or exception leaves its series, whose master gets a new
    /// version.
    public func removeEvent(id: String) throws {
        try locked { state in
            guard let event = state.events[id] else { throw SeedError(description: "no event \(id)") }
            Self.remove(event, notify: false, in: &state)
        }
    }

    /// The update `changes` make to `event`: its times kept unless `start` or `end` is given.
    private static func outlookUpdate(_ changes: [String: Any], of event: StoredEvent) throws -> EventUpdate {
        func when(_ field: String, keeping kept: When) throws -> When {
            guard changes[field] != nil else { return kept }
            guard case .success(let found) = parseWhen(changes[field], seeding: true) else {
                throw SeedError(description: "event \(event.id): unusable \(field)")
            }
            return found
        }
        let start = try when(
            "start", keeping: When(local: event.startLocal, zone: event.startZone, instant: event.start))
        let end = try when("end", keeping: When(local: event.endLocal, zone: event.endZone, instant: event.end))
        let writable = writableFields(of: changes)
        return EventUpdate(
            start: start, end: end, isAllDay: changes["isAllDay"] as? Bool ?? event.isAllDay,
            movesTimes: changes["start"] != nil || changes["end"] != nil, recurrenceStarts: nil,
            changes: writable.fields, properties: writable.properties)
    }
}
