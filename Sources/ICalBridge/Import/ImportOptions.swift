import Foundation

/// Settings of one import conversion.
public struct ImportOptions: Sendable {
    /// The user's zone (`--tz` or the mailbox zone): floating times and all-day events are placed in it.
    public var userZone: ResolvedZone?
    /// `--as-meeting`: ORGANIZER/ATTENDEEs become real attendees (Graph then mails them). Off by default:
    /// they are written into the body as text.
    public var asMeeting = false
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

    public init(userZone: ResolvedZone? = nil, asMeeting: Bool = false, strict: Bool = false, file: String = "<input>")
    {
        self.userZone = userZone
        self.asMeeting = asMeeting
        self.strict = strict
        self.file = file
    }
}
