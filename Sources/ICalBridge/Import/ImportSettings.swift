/// How `graph-ics import` delivers the events of a plan: the calendar, what to do with duplicates, whether
/// attendees are invited. The plan is finished for them (``ICSToGraph/plan(_:options:settings:)``): each
/// ``PlannedEvent`` carries the settings its payload was written for, and the importer (GraphICS's
/// `EventImporter`) imports events only with the settings they carry. How the file is read is
/// ``ImportOptions``.
public struct ImportSettings: Sendable, Equatable {
    /// What to do with an event an earlier import already created (`--on-duplicate`).
    public enum DuplicatePolicy: String, Sendable, Equatable, CaseIterable {
        /// Leave it alone (the default).
        case skip
        /// Change it to the file's version when the file's SEQUENCE (or, with an equal SEQUENCE, its DTSTAMP)
        /// is newer than the one stored with it.
        case update
        /// Create another copy, with a fresh `transactionId` so Graph does not take it for a retry.
        case new
    }

    /// The calendar to import into; `nil` for the default calendar. Part of every `transactionId`.
    public var calendarID: String?
    public var onDuplicate: DuplicatePolicy
    /// `--as-meeting` (`--as-meeting --yes` for import): ORGANIZER and ATTENDEEs become the payload's
    /// attendees, whom Graph mails an invitation, and cancelling or changing a meeting notifies its attendees.
    /// Off (the default): they are written into the body as text and not sent, and an event found with
    /// attendees is neither changed, deleted nor cancelled, so nobody is ever mailed.
    public var notifiesAttendees: Bool

    public init(calendarID: String? = nil, onDuplicate: DuplicatePolicy = .skip, notifiesAttendees: Bool = false) {
        self.calendarID = calendarID
        self.onDuplicate = onDuplicate
        self.notifiesAttendees = notifiesAttendees
    }
}

extension ImportSettings: CustomStringConvertible {
    /// `calendar AAMk…, --on-duplicate skip, attendees invited` (`the default calendar`, `not invited`).
    public var description: String {
        (calendarID.map { "calendar \($0)" } ?? "the default calendar") + ", --on-duplicate \(onDuplicate.rawValue), "
            + (notifiesAttendees ? "attendees invited" : "attendees not invited")
    }
}
