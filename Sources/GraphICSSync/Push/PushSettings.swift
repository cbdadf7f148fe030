import ICalBridge

/// How `sync` sends local changes to Graph.
public struct PushSettings: Sendable {
    /// `--as-meeting --yes`: new files are created with their ATTENDEEs as attendees (Graph mails them an
    /// invitation), and a meeting the user organises may be changed or deleted (Graph mails an update or a
    /// cancellation). Off (the default): attendees are written into the body and not sent, and such a meeting
    /// is held: reported, nothing sent.
    public var notifiesAttendees: Bool
    /// How the files are read: the zone for floating times and all-day events. Files are always read
    /// strictly (a recurrence Graph cannot hold is refused for that item: an expansion into single events
    /// could not map back to one file), and each diagnostic names the file it is about.
    public var importOptions: ImportOptions
    /// The calendar the pairing syncs, as the import names it: nil for the mailbox's default calendar (the
    /// one `calendarView/delta` reads). Part of every created event's `transactionId`.
    public var calendarID: String?

    public init(
        notifiesAttendees: Bool = false, importOptions: ImportOptions = ImportOptions(), calendarID: String? = nil
    ) {
        self.notifiesAttendees = notifiesAttendees
        self.importOptions = importOptions
        self.calendarID = calendarID
    }

    /// The import's settings for the files of a push: duplicates are skipped (a create a killed run already
    /// made is found by its source UID and adopted, not made twice).
    var importSettings: ImportSettings {
        ImportSettings(calendarID: calendarID, onDuplicate: .skip, notifiesAttendees: notifiesAttendees)
    }
}
