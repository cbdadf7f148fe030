import GraphICS
import ICalBridge

/// What `delete`, `edit` and `respond` say about the event they work on: its name and time as the user
/// knows them, and whom Graph mails when it changes.
enum EventActions {
    /// `'Stand-up' (Tuesday 1 December 2026 09:30)`, the time in `zone`.
    static func label(_ event: EventStanding, zone: ResolvedZone, clock: EventWhen) -> String {
        let subject = event.subject.isEmpty ? "(no subject)" : event.subject
        guard let when = when(event, zone: zone, clock: clock) else { return "'\(subject)'" }
        return "'\(subject)' (\(when))"
    }

    /// `Tuesday 1 December 2026 09:30` (``EventWhen``), or the day alone for an all-day event.
    static func when(_ event: EventStanding, zone: ResolvedZone, clock: EventWhen) -> String? {
        let value = GraphDateTimeTimeZone(dateTime: event.start, timeZone: event.startZone)
        if event.isAllDay {
            return event.start.flatMap(GraphTimestamp.parse).map { clock.day($0.civil.date) + ", all day" }
        }
        guard let instant = AgendaEntry.instant(value) else { return nil }
        return clock.moment(instant, in: zone)
    }

    /// The instants (or, for all-day events, the dates at midnight as UTC seconds) an event spans.
    static func span(_ event: EventStanding) -> (start: Int64, end: Int64)? {
        guard let start = AgendaEntry.instant(GraphDateTimeTimeZone(dateTime: event.start, timeZone: event.startZone)),
            let end = AgendaEntry.instant(GraphDateTimeTimeZone(dateTime: event.end, timeZone: event.endZone))
        else { return nil }
        return (start, end)
    }

    /// `ann@contoso.com, bo@contoso.com` (at most five, then `and 3 more`).
    static func addresses(_ list: [String]) -> String {
        let shown = list.prefix(5).joined(separator: ", ")
        return list.count > 5 ? shown + " and \(list.count - 5) more" : shown
    }

    /// The refusal for a meeting the user organises, when `--as-meeting --yes` was not given: what Graph
    /// would mail, and how to go ahead anyway.
    static func meetingRefusal(
        _ event: EventStanding, doing: String, mail: String, zone: ResolvedZone, clock: EventWhen
    ) -> String {
        "\(label(event, zone: zone, clock: clock)) is a meeting you organise with \(event.attendees.count) attendee"
            + "\(event.attendees.count == 1 ? "" : "s") (\(addresses(event.attendees))): \(doing) makes Graph mail "
            + "them \(mail); nothing was changed. Give --as-meeting --yes to go ahead (event \(event.id))"
    }

    /// Whether a Graph error says the event does not exist (404).
    static func isUnknown(_ error: any Error) -> Bool {
        (error as? GraphError)?.kind == .notFound
    }

    /// The event `id` as `edit` and `respond` need it, or exit 66 naming it and saying that nothing was
    /// `done` when Graph has no such event.
    static func standing(of id: String, _ client: GraphClient, nothing done: String) throws -> EventStanding {
        do {
            return try client.standing(ofEvent: id)
        } catch  where isUnknown(error) {
            throw CommandFailure(.inputMissing, "no event \(id) in this mailbox (Graph answered 404); nothing \(done)")
        }
    }
}
