/// An item changed on both sides since the last sync, as a `--conflict ask` resolver is shown it.
public struct SyncConflict: Sendable, Equatable {
    public var fileName: String
    public var uid: String?
    public var subject: String?
    /// What was done to the file here.
    public var local: SyncReport.Change
    /// What Outlook did to the event.
    public var graph: SyncReport.Change
    /// What differs between the two versions, one line per property (`subject: "A" here, "B" in Outlook`).
    public var differences: [String]
    /// How many attendees Graph would mail if the local version won (0: nobody).
    public var attendeesMailed: Int

    public init(
        fileName: String, uid: String?, subject: String?, local: SyncReport.Change, graph: SyncReport.Change,
        differences: [String] = [], attendeesMailed: Int = 0
    ) {
        self.fileName = fileName
        self.uid = uid
        self.subject = subject
        self.local = local
        self.graph = graph
        self.differences = differences
        self.attendeesMailed = attendeesMailed
    }
}

/// The calendar's name and colour, for the folder's `displayname` and `color` files.
public struct CalendarMetadata: Sendable, Equatable {
    public var name: String?
    /// Graph's `hexColor` (`#RRGGBB`, or empty for a calendar without one).
    public var hexColor: String?

    public init(name: String?, hexColor: String?) {
        self.name = name
        self.hexColor = hexColor
    }
}
