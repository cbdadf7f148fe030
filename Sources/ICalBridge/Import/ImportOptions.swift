/// How an `.ics` file is read for an import: the user's zone, strictness, expansion limits, the file's name.
/// How its events are delivered (calendar, duplicates, attendees) is ``ImportSettings``.
public struct ImportOptions: Sendable {
    /// The user's zone (`--tz` or the mailbox zone): floating times and all-day events are placed in it.
    public var userZone: ResolvedZone?
    /// `--strict`: a recurrence Graph cannot hold is an error instead of being expanded.
    public var strict = false
    /// The most occurrences an RRULE Graph cannot hold is expanded into.
    public var expansionLimit = 500
    /// Units of libical's stepping (see ``RecurrenceRule/expansionHorizon(start:budget:)``) each expanded
    /// RRULE may use; set for each file from its number of filtering RRULEs, so that a file of RRULEs whose
    /// filters seldom match is read in about a second, not in hours.
    var expansionBudget = 20_000
    /// The file named in diagnostics.
    public var file: String

    public init(userZone: ResolvedZone? = nil, strict: Bool = false, file: String = "<input>") {
        self.userZone = userZone
        self.strict = strict
        self.file = file
    }
}
