import Foundation
import GraphICS
import ICalBridge

/// The short form `import --interactive` opens in the editor for one event, and what the edited form makes
/// of the event.
///
/// One `field: value` line per field (title, start, end, zone, all-day, location, reminder, show-as, and
/// attendees with `--as-meeting`), then `notes:` and everything after it. Times are read by ``TypedTime``,
/// the reader of every time a user types, in the form's zone. Only the fields whose text changed are
/// applied; the event keeps its source UID and its other properties, so a later plain import of the same
/// file skips it.
struct ImportInteractiveForm {
    static let header = """
        # graph-ics import: change the event, save, and quit the editor to import it as it stands here.
        # Left unchanged, the event is imported as it was; an empty file skips it; quitting without
        # saving imports nothing and asks again.
        # start, end: '2027-01-22 20:15', '20:15' (on the start's day), 'fri 20:15', '+1d 09:00',
        #   or with an offset '2027-01-22T20:15+01:00', read in the zone below (an IANA name).
        #   A new start with the end left as it was keeps the event's length (as edit --start).
        # all-day: yes or no; with yes, start and end are days, and
        #   end: the day after the last day (as add --end).
        # reminder: none, default, 15m, 1h, 2d. show-as: free, tentative, busy, oof, workingElsewhere.
        # The notes are everything after 'notes:'.
        """

    /// The fields in the order the form lists them; `notes` is always last.
    let fields: [String]
    /// Each field's text as the form shows it for the event as planned.
    let values: [String: String]
    let event: PlannedEvent

    init(event: PlannedEvent, userZone: ResolvedZone) {
        self.event = event
        let payload = event.payload
        let zone = ImportInteractiveCard.zone(of: payload) ?? userZone
        var values = [
            "title": payload.subject ?? "",
            "zone": zone.name,
            "all-day": payload.isAllDay == true ? "yes" : "no",
            "location": payload.location?.displayName ?? "",
            "reminder": Self.reminderText(payload),
            "show-as": payload.showAs ?? "busy",
            "notes": payload.body?.content ?? "",
        ]
        if payload.isAllDay == true {
            let first = ImportInteractiveCard.civil(payload.start)
            values["start"] = first?.dateString ?? ""
            values["end"] = ImportInteractiveCard.civil(payload.end)?.dateString ?? ""
        } else {
            values["start"] = AgendaEntry.instant(payload.start).map { Self.timeText($0, in: zone) } ?? ""
            values["end"] = AgendaEntry.instant(payload.end).map { Self.timeText($0, in: zone) } ?? ""
        }
        var fields = ["title", "start", "end", "zone", "all-day", "location", "reminder", "show-as"]
        if event.settings.notifiesAttendees {
            fields.append("attendees")
            values["attendees"] = (payload.attendees ?? []).compactMap { attendee -> String? in
                guard let address = attendee.emailAddress?.address else { return nil }
                return EventDraft.Attendee(address: address, name: attendee.emailAddress?.name).description
            }.joined(separator: "; ")
        }
        self.fields = fields + ["notes"]
        self.values = values
    }

    /// The form's text, with `error` (from the last attempt) at the top.
    func text(error: String? = nil) -> String {
        var lines = error.map { ["# error: " + $0] } ?? []
        lines.append(Self.header)
        if event.payload.body?.contentType?.lowercased() == "html" {
            lines.append("# The notes are HTML; what you write under 'notes:' replaces them as plain text.")
        }
        for field in fields where field != "notes" { lines.append("\(field): \(values[field] ?? "")") }
        lines.append("notes:")
        if let notes = values["notes"], !notes.isEmpty { lines.append(notes) }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: Reading the edited form

    /// The field values of an edited form; nil when the form was emptied (nothing but comments and blank
    /// lines). A leading `# error:` line of an earlier attempt is a comment like the others.
    func read(_ text: String) throws(FormError) -> [String: String]? {
        var found: [String: String] = [:]
        var notes: [String]?
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if notes != nil {
                notes?.append(String(line))
                continue
            }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let colon = trimmed.firstIndex(of: ":") else {
                throw FormError("line \(number + 1): '\(trimmed)' is not 'field: value'")
            }
            let key = trimmed[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard fields.contains(key) else {
                throw FormError(
                    "line \(number + 1): '\(key)' is not a field of the form (\(fields.joined(separator: ", ")))")
            }
            if key == "notes" {
                notes = value.isEmpty ? [] : [value]
            } else {
                found[key] = value
            }
        }
        let noteText = (notes ?? []).joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        if found.isEmpty && noteText.isEmpty { return nil }
        found["notes"] = noteText
        if let missing = fields.first(where: { found[$0] == nil }) {
            throw FormError(
                "the form has no '\(missing):' line; put it back, or empty the whole file to skip the event")
        }
        return found
    }

    /// The fields whose text differs from the form as it was shown.
    func changes(in edited: [String: String]) -> [String] {
        fields.filter { field in
            let old = (values[field] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            return edited[field] != old
        }
    }

    /// The event with the changed fields applied; its identity, version and transactionId stay the planned
    /// ones. `now` is what `today` and `+1d` count from.
    func apply(_ edited: [String: String], now: Date = Date()) throws(FormError) -> PlannedEvent {
        let changed = Set(changes(in: edited))
        var event = event
        if !changed.isDisjoint(with: ["start", "end", "zone", "all-day"]) {
            guard event.payload.recurrence == nil else {
                throw FormError(
                    "this is a series: its times are not edited here (import it and change the series in Outlook)")
            }
            try applyTimes(edited, changed: changed, to: &event.payload, now: now)
        }
        let value = { (field: String) in edited[field] ?? "" }
        if changed.contains("title") {
            guard !value("title").isEmpty else {
                throw FormError("title: an event needs a title (empty the whole file to skip the event)")
            }
            event.payload.subject = value("title")
        }
        if changed.contains("location") {
            event.payload.location = value("location").isEmpty ? nil : GraphLocation(displayName: value("location"))
            event.payload.locations = nil
        }
        if changed.contains("reminder") { try Self.applyReminder(value("reminder"), to: &event.payload) }
        if changed.contains("show-as") { event.payload.showAs = try Self.showAs(value("show-as")) }
        if changed.contains("notes") {
            event.payload.body =
                value("notes").isEmpty ? nil : GraphItemBody(contentType: "text", content: value("notes"))
        }
        if changed.contains("attendees") {
            do throws(AttendeeListError) {
                event.payload.attendees = try EventDraft.attendees(value("attendees")).map { attendee in
                    GraphAttendee(
                        type: "required",
                        emailAddress: GraphEmailAddress(name: attendee.name, address: attendee.address))
                }
            } catch {
                throw FormError("attendees: \(error.description) (separate addresses with ';')")
            }
        }
        return event
    }

    /// Start, end, zone and all-day, read as `add` reads them (an all-day end is the day after the last day)
    /// and told to Graph as `add` tells them. A new start with the end unchanged keeps the event's length,
    /// as `edit --start` does (whole days for an all-day event).
    private func applyTimes(
        _ edited: [String: String], changed: Set<String>, to payload: inout GraphEvent, now: Date
    ) throws(FormError) {
        let zoneName = edited["zone"] ?? ""
        guard case .resolved(let zone, _) = ZoneResolver.resolve(zoneName) else {
            throw FormError("zone: '\(zoneName)' is not a time zone (an IANA name such as Europe/Berlin)")
        }
        let allDay: Bool
        switch edited["all-day"]?.lowercased() {
        case "yes", "y", "true": allDay = true
        case "no", "n", "false": allDay = false
        default: throw FormError("all-day: '\(edited["all-day"] ?? "")' is neither yes nor no")
        }
        let keepsLength =
            changed.contains("start") && !changed.contains("end") && allDay == (payload.isAllDay == true)
        let typed = TypedTime(now: now, zone: zone)
        let when: EventDraft.When
        do throws(UsageError) {
            if allDay {
                let first = try typed.day(edited["start"] ?? "", option: "start")
                let end: CivilDateTime
                if keepsLength, let days = Self.days(payload) {
                    end = first.adding(days: days)
                } else {
                    end = try typed.day(edited["end"] ?? "", option: "end", relativeTo: first)
                }
                guard first < end else {
                    throw UsageError(
                        "end \(end.dateString) must come after start \(first.dateString): for an all-day event the "
                            + "end is the day after the last day (end: \(first.adding(days: 1).dateString) for one day)"
                    )
                }
                when = .allDay(first: first, end: end)
            } else {
                let startMoment = try typed.moment(edited["start"] ?? "", option: "start")
                let start = typed.place(startMoment).instant
                let end: Int64
                if keepsLength, let old = AgendaEntry.instant(payload.start),
                    let oldEnd = AgendaEntry.instant(payload.end)
                {
                    end = start + (oldEnd - old)
                } else {
                    let endMoment = try typed.moment(
                        edited["end"] ?? "", option: "end", relativeTo: zone.localTime(at: start).date)
                    end = typed.place(endMoment).instant
                }
                guard start <= end else {
                    throw UsageError("end '\(edited["end"] ?? "")' is before start '\(edited["start"] ?? "")'")
                }
                when = .timed(start: start, end: end)
            }
        } catch {
            throw FormError(error.message)
        }
        let told = EventDraft(subject: "", when: when, zone: zone).event(transactionID: "")
        payload.start = told.start
        payload.end = told.end
        payload.isAllDay = told.isAllDay
    }

    /// How many days an all-day event covers (its exclusive end's distance from its first day).
    private static func days(_ payload: GraphEvent) -> Int? {
        guard let first = ImportInteractiveCard.civil(payload.start), let end = ImportInteractiveCard.civil(payload.end)
        else { return nil }
        return Int((end.secondsSinceEpoch - first.secondsSinceEpoch) / 86_400)
    }

    // MARK: Values

    /// `2027-01-22 20:15` in `zone`.
    static func timeText(_ instant: Int64, in zone: ResolvedZone) -> String {
        let local = zone.localTime(at: instant)
        return local.dateString + " " + AgendaText.time(local)
    }

    /// `none`, `default` (Graph's), or a length such as `30m`, `1h`, `1h30m`, `2d`.
    static func reminderText(_ payload: GraphEvent) -> String {
        if payload.isReminderOn == false { return "none" }
        guard let minutes = payload.reminderMinutesBeforeStart else { return "default" }
        if minutes > 0, minutes % 1440 == 0 { return "\(minutes / 1440)d" }
        switch (minutes / 60, minutes % 60) {
        case (0, let rest): return "\(rest)m"
        case (let hours, 0): return "\(hours)h"
        case (let hours, let rest): return "\(hours)h\(rest)m"
        }
    }

    static func applyReminder(_ text: String, to payload: inout GraphEvent) throws(FormError) {
        switch text.lowercased() {
        case "none", "no", "off":
            payload.isReminderOn = false
            payload.reminderMinutesBeforeStart = nil
        case "default":
            payload.isReminderOn = nil
            payload.reminderMinutesBeforeStart = nil
        default:
            do throws(UsageError) {
                let seconds = try TypedTime.duration(text, option: "reminder")
                payload.isReminderOn = true
                payload.reminderMinutesBeforeStart = Int(seconds / 60)
            } catch {
                throw FormError(error.message + ", none or default")
            }
        }
    }

    /// Graph's `showAs` values, and the names the card gives them.
    static let showAsValues = [
        ("free", "free"), ("tentative", "tentative"), ("busy", "busy"), ("oof", "away"),
        ("workingElsewhere", "working elsewhere"),
    ]

    static func showAs(_ text: String) throws(FormError) -> String {
        let lower = text.lowercased()
        guard let value = showAsValues.first(where: { $0.0.lowercased() == lower || $0.1 == lower }) else {
            throw FormError(
                "show-as: '\(text)' is not one of \(showAsValues.map(\.0).joined(separator: ", "))")
        }
        return value.0
    }

    /// `busy` → `busy`, `oof` → `away`.
    static func showAsName(_ value: String) -> String {
        showAsValues.first { $0.0.lowercased() == value.lowercased() }?.1 ?? value
    }
}

/// What is wrong with an edited form: one sentence, shown at the top of the form when it is opened again.
struct FormError: Error, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}
