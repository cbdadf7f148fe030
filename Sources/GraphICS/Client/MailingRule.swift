import Foundation

/// The one answer to "would Graph mail someone if graph-ics did this to the event?", for everything that
/// changes or removes events (`import`, `import --undo`, `delete`, `edit`, sync's push), so that each refuses
/// or holds the same events unless the user asked for mail (`--as-meeting --yes`).
///
/// The rule:
/// - a change or deletion of an event whose `isOrganizer` is false mails nobody: it changes the user's copy
///   of someone else's meeting;
/// - one whose `isOrganizer` is true or missing mails its attendees, if it has at least one (a missing
///   field is read the careful way: refusing never mails anybody);
/// - a PATCH of only the reminder (`isReminderOn`, `reminderMinutesBeforeStart`) and graph-ics's own
///   extended properties mails nobody.
///
/// Graph's documentation: deleting a meeting in the organizer's calendar sends the attendees a cancellation
/// (`api/event-delete.md`), `POST …/cancel` does so by design (`api/event-cancel.md`), and an update of a
/// meeting the user organizes sends them the change (`api/event-update.md`). What an attendee's own change
/// sends, and whether a reminder-only change is mailed, is on no page (docs/STAND-IN.md says so).
public enum MailingRule {
    /// What is about to be done to an event.
    public enum Change: Sendable, Equatable {
        /// An update of properties not listed (a whole event's payload).
        case update
        /// A PATCH of exactly these properties.
        case patch(Set<String>)
        case delete
    }

    /// The properties a PATCH may change without Graph mailing anybody.
    public static let quietProperties: Set<String> = [
        "isReminderOn", "reminderMinutesBeforeStart", "singleValueExtendedProperties",
    ]

    /// Whether `change` makes Graph mail the attendees of an event with `attendees` attendees, whose
    /// `isOrganizer` is as Graph sent it (nil when it sent none).
    public static func mails(_ change: Change, attendees: Int, isOrganizer: Bool?) -> Bool {
        guard attendees > 0, isOrganizer != false else { return false }
        if case .patch(let properties) = change, properties.isSubset(of: quietProperties) { return false }
        return true
    }

    /// Whether `change` makes Graph mail the attendees of `event`.
    public static func mails(_ change: Change, _ event: EventStanding) -> Bool {
        mails(change, attendees: event.attendees.count, isOrganizer: event.isOrganizer)
    }

    /// The sentence of a refusal: `the event is a meeting with 2 attendee(s); deleting it would make Graph
    /// mail them; run with --as-meeting --yes to allow that`.
    public static func refusal(_ what: String, attendees: Int, doing: String) -> String {
        "\(what) is a meeting with \(attendees) attendee(s); \(doing) would make Graph mail them; run with"
            + " --as-meeting --yes to allow that"
    }
}
