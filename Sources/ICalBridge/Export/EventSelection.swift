/// How much of each event an export or a feed shows, as Outlook's calendar publishing offers it.
public enum ExportDetail: String, Sendable, CaseIterable, Codable {
    /// Everything `graph-ics export` writes.
    case full
    /// Times, subject, location, show-as, all-day, recurrence and cancelled status; no body, attendees,
    /// organizer, meeting link, categories, reminder, Graph id or web link.
    case limited
    /// Times and show-as only, under a SUMMARY naming the show-as ("Busy", "Tentative", …); free time is
    /// left out.
    case busy
}

/// Which events an export or a feed shows, and how much of each: the detail level and the filters of
/// `--detail`, `--show-private`, `--exclude-declined`, `--exclude-cancelled` and `--category`.
///
/// Private and confidential events (Graph's `sensitivity`) are busy blocks at every level unless
/// ``showPrivate`` is set. ``GraphToICS/PageStream`` applies ``ExportOptions/selection`` to every event
/// before encoding it, in both recurrence styles, so `export` and `serve` show the same bytes for the same
/// selection. Stored in `feeds.json` with the property names as JSON keys.
public struct EventSelection: Sendable, Equatable, Codable {
    public var detail: ExportDetail
    /// Private and confidential events shown at ``detail`` too; when false they are busy blocks.
    public var showPrivate: Bool
    /// Leaves out events the mailbox's owner declined (`responseStatus.response` is `declined`).
    public var excludeDeclined: Bool
    /// Leaves out cancelled events (`isCancelled`).
    public var excludeCancelled: Bool
    /// Empty: every event; else only events with one of these categories, compared case-insensitively.
    public var categories: [String]

    public init(
        detail: ExportDetail = .full, showPrivate: Bool = true, excludeDeclined: Bool = false,
        excludeCancelled: Bool = false, categories: [String] = []
    ) {
        self.detail = detail
        self.showPrivate = showPrivate
        self.excludeDeclined = excludeDeclined
        self.excludeCancelled = excludeCancelled
        self.categories = categories
    }

    /// What `graph-ics export` wrote before selections existed: full detail, private events shown,
    /// nothing left out.
    public static let everything = EventSelection()

    /// True when every event is written as Graph gave it (``apply(to:)`` changes nothing).
    public var isEverything: Bool { self == .everything }

    /// The event as this selection shows it, or nil when it is left out.
    public func apply(to event: GraphEvent) -> GraphEvent? {
        if isEverything { return event }
        guard isIncluded(event) else { return nil }
        let isHidden = !showPrivate && Self.privateSensitivities.contains(event.sensitivity?.lowercased() ?? "")
        switch isHidden ? .busy : detail {
        case .full: return event
        case .limited: return Self.limited(event)
        case .busy: return Self.busyBlock(event)
        }
    }

    /// Whether the filters keep `event` (the detail level aside; see ``apply(to:)`` for free time).
    func isIncluded(_ event: GraphEvent) -> Bool {
        if excludeDeclined, event.responseStatus?.response?.lowercased() == "declined" { return false }
        if excludeCancelled, event.isCancelled == true { return false }
        if !categories.isEmpty {
            let wanted = Set(categories.map { $0.lowercased() })
            guard (event.categories ?? []).contains(where: { wanted.contains($0.lowercased()) }) else { return false }
        }
        return true
    }

    /// Graph's `sensitivity` values shown as busy blocks unless ``showPrivate``.
    static let privateSensitivities: Set<String> = ["private", "confidential"]

    /// The SUMMARY of a busy block per `showAs`; `free` is not here: free time is left out.
    static let busySummaries: [String: String] = [
        "busy": "Busy", "tentative": "Tentative", "oof": "Out of office", "workingElsewhere": "Working elsewhere",
        "unknown": "Busy",
    ]

    /// What ``ExportDetail/limited`` keeps of `event`.
    static func limited(_ event: GraphEvent) -> GraphEvent {
        var shown = skeleton(of: event)
        shown.subject = event.subject
        shown.location = event.location
        return shown
    }

    /// `event` as a busy block (``ExportDetail/busy``), nil for free time.
    static func busyBlock(_ event: GraphEvent) -> GraphEvent? {
        let showAs = event.showAs ?? "busy"
        guard showAs != "free" else { return nil }
        var shown = skeleton(of: event)
        shown.subject = busySummaries[showAs] ?? "Busy"
        return shown
    }

    /// The properties every level keeps: UID, times, recurrence, show-as and status, and what the page
    /// stream needs to place occurrences in their series. The UID stays the one `full` writes; when Graph
    /// gave no `iCalUId`, it is derived from the event's id without showing it.
    static func skeleton(of event: GraphEvent) -> GraphEvent {
        var shown = GraphEvent()
        shown.iCalUId = event.iCalUId
        if event.iCalUId?.isEmpty ?? true {
            if let key = ImportIdentity.key(of: event), !key.isEmpty {
                shown.iCalUId = key
            } else if let id = event.id, !id.isEmpty {
                shown.iCalUId = "graph-ics-" + EventEncoder.Context.stableHash(id)
            }
        }
        shown.start = event.start
        shown.end = event.end
        shown.originalStartTimeZone = event.originalStartTimeZone
        shown.originalEndTimeZone = event.originalEndTimeZone
        shown.originalStart = event.originalStart
        shown.isAllDay = event.isAllDay
        shown.isCancelled = event.isCancelled
        shown.showAs = event.showAs
        shown.createdDateTime = event.createdDateTime
        shown.lastModifiedDateTime = event.lastModifiedDateTime
        shown.type = event.type
        shown.seriesMasterId = event.seriesMasterId
        shown.recurrence = event.recurrence
        return shown
    }
}
