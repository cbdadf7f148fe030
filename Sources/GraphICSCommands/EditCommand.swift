import Foundation
import GraphICS
import ICalBridge

/// `graph-ics edit`: changes the subject, times, location or body of one event (`PATCH`).
struct EditCommand: Command {
    static let name = "edit"
    static let abstract = "Change one event's subject, times, location or body."
    static let synopsis = [
        "EVENT [--subject S] [--start T] [--end T | --duration D] [--location L]",
        "[--body TEXT] [--as-meeting --yes] [--tz ZONE] [--user UPN]",
    ]
    static let discussion = """
        Changes what the options give of EVENT (an id as 'graph-ics add', 'agenda --json' or
        'import --json' print it) and leaves the rest as it is. Times are read as 'graph-ics add'
        reads them ('tomorrow 10:00', 'mon 9:30', '2026-12-01 09:30', ISO 8601 with an offset), in
        --tz or else the mailbox's time zone; an all-day event takes days. A new --start alone keeps
        the event's length; --end alone or --duration alone keeps its start, and --end's time alone
        is on the start's day. An empty --location or --body clears it.

        Graph mails nobody when you change an event of your own without attendees. Changing a
        meeting you organise makes Graph mail every attendee an update: graph-ics refuses that, and
        says so, unless you give --as-meeting --yes. In a meeting you were invited to, the change is
        to your copy only: the organizer is not told, and their next update replaces it.

        --body is refused for an online meeting (Teams, Skype): Graph keeps the meeting's join details
        in the body, and a new body without them would turn the online meeting off.
        """
    static let epilogue = """
        Examples:
          graph-ics edit AAMkAGI2TG93AAA= --start 'tomorrow 11:00'
          graph-ics edit AAMkAGI2TG93AAA= --subject 'Dentist (moved)' --location 'Praxis 2'
          graph-ics edit AAMkAGI2TG93AAA= --duration 1h30m --as-meeting --yes

        Exit status: 0 changed, 1 not changed (a meeting without --as-meeting --yes), 64 usage,
        65 Graph refused the change, or --body of an online meeting, 66 no such event, 69 Graph
        unavailable, 77 not signed in or no permission.
        """
    static let operands: ValueCompletion? = .anything

    struct Options: OptionGroup {
        let subject = Option("--subject", value: "S", help: "The new title.")
            .refusingEmpty("--subject needs a title")
        let start = Option("--start", value: "T", help: "New start, as 'graph-ics add' takes it; keeps the length.")
        let end = Option("--end", value: "T", help: "New end (a time alone is on the start's day).")
        let duration = Option("--duration", value: "D", help: "New length from the start: 30m, 1h, 1h30m, 2d, 90.")
        let location = Option("--location", value: "L", help: "New location ('' clears it).")
        let body = Option("--body", value: "TEXT", help: "New description, plain text ('' clears it).")
        let asMeeting = Flag(
            "--as-meeting", help: "Change a meeting you organise too (with --yes): Graph mails its attendees.")
        let yes = Flag("-y", "--yes", help: "With --as-meeting: go ahead without asking.")
        let zone = Option.zone(help: "Read and show times in this zone instead of the mailbox's.")
        let connection = ConnectionOptions.Declarations()
    }

    var id: String
    var subject: String?
    var start: String?
    var end: String?
    var duration: Int64?
    var location: String?
    var body: String?
    var asMeeting: Bool
    var yes: Bool
    var zone: ResolvedZone?
    var connection: ConnectionOptions

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        guard parsed.positionals.count == 1, let id = parsed.positionals.first else {
            throw UsageError(
                parsed.positionals.isEmpty ? "name the event to change (its id)" : "edit changes one event at a time")
        }
        self.id = id
        connection = try ConnectionOptions(parsed.group(\.connection))
        subject = try parsed[\.subject]
        start = try parsed[\.start]
        end = try parsed[\.end]
        duration = try parsed[\.duration].map { (text) throws(UsageError) in
            try TypedTime.duration(text, option: "--duration")
        }
        location = try parsed[\.location]
        body = try parsed[\.body]
        asMeeting = parsed[\.asMeeting]
        yes = parsed[\.yes]
        zone = try parsed[\.zone]
        guard end == nil || duration == nil else { throw UsageError("give --end or --duration, not both") }
        guard subject != nil || start != nil || end != nil || duration != nil || location != nil || body != nil else {
            throw UsageError("say what to change: --subject, --start, --end, --duration, --location or --body")
        }
        let probe = TypedTime(zone: zone ?? .utc)
        for (option, text) in [("--start", start), ("--end", end)] {
            guard let text, (try? probe.day(text, option: option)) == nil else { continue }
            _ = try probe.moment(text, option: option)
        }
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        let session = try Session.open(connection, need: .write, terminal: terminal)
        let zone = try session.mailboxZone(override: self.zone, terminal: terminal)
        let event = try EventActions.standing(of: id, session.client, nothing: "changed")
        let clock = EventWhen(session.config)
        let label = EventActions.label(event, zone: zone, clock: clock)
        if body != nil && event.isOnlineMeeting {
            throw CommandFailure(.badInput, Self.onlineMeetingRefusal(label, id: id))
        }
        let patch = try self.patch(for: event, TypedTime(zone: zone), terminal)
        if MailingRule.mails(.patch(Set(patch.keys)), event) {
            guard asMeeting && yes else {
                terminal.error(
                    EventActions.meetingRefusal(
                        event, doing: "changing it", mail: "an update", zone: zone, clock: clock))
                return .partlyFailed
            }
            terminal.note("Graph will mail an update of \(label) to \(EventActions.addresses(event.attendees))")
        } else if event.isOrganizer == false {
            terminal.note(
                "you are an attendee of \(label): this changes your copy only; the organizer is not told, and their "
                    + "next update replaces it")
        }
        do {
            try session.client.updateEvent(
                id: id, patch: JSONSerialization.data(withJSONObject: patch, options: [.sortedKeys]))
        } catch let error as GraphError where error.kind == .notFound {
            throw CommandFailure(.inputMissing, "\(label) was not changed: \(error.description)")
        }
        terminal.note(
            "changed \(patch.keys.sorted().joined(separator: ", ")) of \(Self.changedLabel(event, patch, zone, clock))")
        terminal.out(id + "\n")
        return .ok
    }

    /// Why `--body` of an online meeting is refused: Graph keeps the meeting's blob in the body, and a new
    /// body without it disables the online meeting (`api/event-update.md`, "body property and online
    /// meetings"); the blob's form is on no page, so graph-ics cannot keep it.
    static func onlineMeetingRefusal(_ label: String, id: String) -> String {
        "\(label) is an online meeting: Graph keeps the meeting's join details in its body, and a new body "
            + "without them turns the online meeting off for every attendee; nothing was changed. Change the "
            + "description in Outlook or Teams (event \(id))"
    }

    /// The PATCH body: only the properties the options change.
    func patch(for event: EventStanding, _ typed: TypedTime, _ terminal: Terminal) throws -> [String: Any] {
        var patch: [String: Any] = [:]
        if let subject { patch["subject"] = subject }
        if let location { patch["location"] = ["displayName": location] }
        if let body { patch["body"] = ["contentType": "text", "content": body] }
        guard start != nil || end != nil || duration != nil else { return patch }
        guard let when = try times(for: event, typed, terminal) else {
            let label = EventActions.label(event, zone: typed.zone, clock: EventWhen())
            throw CommandFailure(.badInput, "\(label) has no times graph-ics can read")
        }
        let draft = EventDraft(subject: event.subject, when: when, zone: typed.zone).event(transactionID: "")
        let encoder = JSONEncoder()
        for (key, value) in [("start", draft.start), ("end", draft.end)] {
            patch[key] = try JSONSerialization.jsonObject(with: encoder.encode(value))
        }
        return patch
    }

    /// The event's new times: the options given, the rest from the event as it is.
    func times(for event: EventStanding, _ typed: TypedTime, _ terminal: Terminal) throws -> EventDraft.When? {
        guard let (oldStart, oldEnd) = EventActions.span(event) else { return nil }
        let startText = start ?? Self.typed(oldStart, event: event, zone: typed.zone)
        let span: TypedSpan
        if let end {
            span = try TypedSpan(start: startText, end: end, duration: nil, allDay: event.isAllDay)
        } else if let duration {
            span = TypedSpan(start: startText, keeping: duration, allDay: event.isAllDay)
        } else {
            span = TypedSpan(start: startText, keeping: oldEnd - oldStart, allDay: event.isAllDay)
        }
        return try span.when(typed, terminal: start == nil ? nil : terminal)
    }

    /// The event as the note after the change names it: the new subject and start, and the old start
    /// when it moved (`'Dentist' (Wednesday 2 December 2026 14:30; was Tuesday 1 December 2026 10:00)`).
    static func changedLabel(
        _ event: EventStanding, _ patch: [String: Any], _ zone: ResolvedZone, _ clock: EventWhen
    ) -> String {
        var changed = event
        if let subject = patch["subject"] as? String { changed.subject = subject }
        if let start = patch["start"] as? [String: Any] {
            changed.start = start["dateTime"] as? String
            changed.startZone = start["timeZone"] as? String
        }
        let label = EventActions.label(changed, zone: zone, clock: clock)
        guard let was = EventActions.when(event, zone: zone, clock: clock),
            let now = EventActions.when(changed, zone: zone, clock: clock),
            was != now
        else { return label }
        return String(label.dropLast()) + "; was \(was))"
    }

    /// The event's current start as `add` would read it back: its day for an all-day event, else the
    /// instant in ISO 8601 with `Z` (so that a start in a fold keeps its instant).
    static func typed(_ instant: Int64, event: EventStanding, zone: ResolvedZone) -> String {
        if event.isAllDay, let date = event.start.flatMap(GraphTimestamp.parse)?.civil {
            return date.dateString
        }
        let utc = CivilDateTime(secondsSinceEpoch: instant)
        return utc.dateString + "T" + AgendaText.time(utc) + ":" + String(format: "%02d", utc.second) + "Z"
    }
}
