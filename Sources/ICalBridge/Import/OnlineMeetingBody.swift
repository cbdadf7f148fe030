/// The one rule for the body of an online meeting, for every write graph-ics makes to an event Graph holds:
/// Graph keeps the meeting's join details (its blob) in the body, and a body sent without them turns the online
/// meeting off for every attendee (api/event-update.md, "Notes for updating specific properties"), so no body
/// is ever sent to an event Graph holds as an online meeting (`isOnlineMeeting` true).
///
/// What a caller does with a changed body left out is its own: sync's push and the CalDAV gateway refuse the
/// change (``refusal``); the import applies the rest, keeps Outlook's description and says so (``keptNote``).
public enum OnlineMeetingBody {
    /// Why a changed DESCRIPTION of an online meeting is not sent, for a change that is refused.
    public static let refusal =
        "the description of an online meeting is not sent: Graph would drop its join details for every "
        + "attendee; change the description in Outlook, or undo the change here"

    /// The note of a change applied without its description.
    public static let keptNote =
        "Outlook's description kept: a description sent to an online meeting would turn the meeting off"

    /// What of `change` may be sent to Graph's event: all of it, or, for an online meeting, the change without
    /// its body (nil when nothing else changed). `leftOut`: a changed body was left out.
    public static func sendable(_ change: EventChange?, toOnlineMeeting isOnlineMeeting: Bool) -> (
        change: EventChange?, leftOut: Bool
    ) {
        guard isOnlineMeeting, var kept = change, kept.fields.contains("body") else { return (change, false) }
        kept.fields.remove("body")
        kept.patch.body = nil
        return (kept.fields.isEmpty ? nil : kept, true)
    }

    /// What of a whole `payload` (sent without a change computed against Graph's event) may be sent to Graph's
    /// event: all of it, or, for an online meeting, the payload without its body. `leftOut`: the body left out
    /// differs from the one of `graph` (Graph's event, or what it holds for the body); nil when that is not
    /// known, and then any body left out counts as changed.
    public static func sendable(
        _ payload: GraphEvent, toOnlineMeeting isOnlineMeeting: Bool, comparedWith graph: GraphEvent?
    ) -> (payload: GraphEvent, leftOut: Bool) {
        guard isOnlineMeeting, let body = payload.body else { return (payload, false) }
        var kept = payload
        kept.body = nil
        return (kept, graph.map { !EventChange.sameBody($0.body, body) } ?? true)
    }
}
