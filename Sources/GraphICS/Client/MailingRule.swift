import Foundation

/// The one answer to "would Graph mail someone if graph-ics did this to the event?", for every command that
/// changes or removes events (`import`, `import --undo`, `delete`, `edit`), so that each refuses the same
/// events unless the user asked for mail (`--as-meeting --yes`).
///
/// Graph's documentation: deleting a meeting in the organizer's calendar sends the attendees a cancellation
/// (`api/event-delete.md`), `POST …/cancel` does so by design (`api/event-cancel.md`), and an update of a
/// meeting the user organizes sends them the change (`api/event-update.md`). graph-ics also counts an
/// update of an event with attendees that someone else organizes as mailing: it cannot tell what Outlook
/// sends for it, and refusing never mails anybody.
public enum MailingRule {
    /// What is about to be done to an event.
    public enum Change: Sendable {
        case update
        case delete
    }

    /// Whether `change` makes Graph mail the attendees of an event with `attendees` attendees, organized by
    /// the signed-in user when `isOrganizer`.
    public static func mails(_ change: Change, attendees: Int, isOrganizer: Bool) -> Bool {
        guard attendees > 0 else { return false }
        switch change {
        case .update: return true
        case .delete: return isOrganizer
        }
    }

    /// The sentence of a refusal: `the event is a meeting with 2 attendee(s); deleting it would make Graph
    /// mail them; run with --as-meeting --yes to allow that`.
    public static func refusal(_ what: String, attendees: Int, doing: String) -> String {
        "\(what) is a meeting with \(attendees) attendee(s); \(doing) would make Graph mail them; run with"
            + " --as-meeting --yes to allow that"
    }
}
