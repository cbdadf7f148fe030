import Foundation
import GraphICS
import ICalBridge

/// The card `import --interactive` shows for one planned event before asking: title (and organizer), when
/// in the user's zone (and in the event's own zone when that differs), where, a line about the notes,
/// reminder and free/busy, who would be mailed, and what the duplicate lookup found.
///
/// ```
/// Kino: Metropolis (1927, restored) – Saal 1 — Babylon Kino
/// Fri 22 Jan 2027 20:15–22:30 Europe/Berlin
/// Babylon, Rosa-Luxemburg-Straße 30, 10178 Berlin
/// Notes: 4 lines · Reminder 30 min before · Busy
/// Not mailed to anyone (organizer and 2 attendees kept as text)
/// Lookup: would create (not imported before)
/// ```
struct ImportInteractiveCard {
    var event: PlannedEvent
    /// The zone the user reads times in (`--tz`, else the mailbox's).
    var userZone: ResolvedZone
    /// What `EventImporter.preview` said the import would do with the event; nil when it could not look.
    var lookup: ImportResult?
    /// Why the lookup did not happen, when it did not.
    var lookupFailure: String?
    /// How days and times are written (`display.time`).
    var clock = EventWhen(days: .short)

    /// The card's lines; text from the file is made printable (no control characters reach the terminal).
    func lines(colour: Bool) -> [String] {
        let payload = event.payload
        var title = PrintableText.printable(payload.subject ?? "(no title)")
        if let organizer = Self.people(payload).organizer { title += " — " + PrintableText.printable(organizer) }
        var lines = [colour ? "\u{1B}[1m\(title)\u{1B}[0m" : title, when()]
        if let repeats = repetition() { lines.append(repeats) }
        if let location = payload.location?.displayName, !location.isEmpty {
            lines.append(PrintableText.printable(location))
        }
        lines.append(details())
        lines.append(mailing())
        lines.append(lookupLine())
        return lines
    }

    // MARK: Lines

    /// `Fri 22 Jan 2027 20:15–22:30 Europe/Berlin (04:15–06:30 in Asia/Shanghai)`, or `… all day`.
    func when() -> String {
        let payload = event.payload
        if payload.isAllDay == true {
            guard let first = Self.civil(payload.start), let end = Self.civil(payload.end) else { return "(no date)" }
            let last = end.adding(days: -1)
            return last > first
                ? clock.day(first) + " – " + clock.day(last) + ", all day" : clock.day(first) + ", all day"
        }
        guard let start = AgendaEntry.instant(payload.start), let end = AgendaEntry.instant(payload.end) else {
            return "(no time)"
        }
        var text = clock.span(start, end, in: userZone) + " " + userZone.name
        if let own = Self.zone(of: payload), own.name != userZone.name,
            own.utcOffset(at: start) != userZone.utcOffset(at: start)
                || own.utcOffset(at: end) != userZone.utcOffset(at: end)
        {
            text += " (" + clock.span(start, end, in: own, withDay: false) + " in \(own.name))"
        }
        return text
    }

    /// `Repeats weekly, 10 times` for a series.
    func repetition() -> String? {
        guard let recurrence = event.payload.recurrence else { return nil }
        var text = "Repeats " + (recurrence.pattern?.type.map(Self.patternName) ?? "")
        switch recurrence.range?.type {
        case "numbered": text += ", \(recurrence.range?.numberOfOccurrences ?? 0) times"
        case "endDate": text += " until " + (recurrence.range?.endDate ?? "?")
        default: text += ", no end"
        }
        return text + " (a series; its times are not edited here)"
    }

    /// `Notes: 3 lines · Reminder 30 min before · Busy`.
    func details() -> String {
        let payload = event.payload
        let notes = payload.body?.content ?? ""
        let count = notes.isEmpty ? 0 : notes.split(separator: "\n", omittingEmptySubsequences: false).count
        var parts = [count == 0 ? "No notes" : "Notes: \(count) line" + (count == 1 ? "" : "s")]
        switch (payload.isReminderOn, payload.reminderMinutesBeforeStart) {
        case (false, _): parts.append("No reminder")
        case (_, let minutes?): parts.append("Reminder \(TypedSpan.duration(Int64(minutes) * 60)) before")
        case (_, nil): parts.append("Your default reminder")
        }
        parts.append(ImportInteractiveForm.showAsName(payload.showAs ?? "busy").capitalizedFirst)
        return parts.joined(separator: " · ")
    }

    /// Who Graph would mail: nobody (the people kept as text), or the attendees with `--as-meeting`.
    func mailing() -> String {
        let payload = event.payload
        if let attendees = payload.attendees, !attendees.isEmpty {
            let names = attendees.compactMap { $0.emailAddress?.address }.joined(separator: ", ")
            return "Graph mails \(attendees.count) attendee(s): " + PrintableText.printable(names)
        }
        let people = Self.people(payload)
        var kept: [String] = []
        if people.organizer != nil { kept.append("organizer") }
        if people.attendees > 0 { kept.append("\(people.attendees) attendee" + (people.attendees == 1 ? "" : "s")) }
        guard !kept.isEmpty else { return "Not mailed to anyone" }
        return "Not mailed to anyone (" + kept.joined(separator: " and ") + " kept as text)"
    }

    /// `Lookup: would skip (already imported)`.
    func lookupLine() -> String {
        guard let lookup else { return "Lookup: not looked up (\(lookupFailure ?? "unknown reason"))" }
        var text = "Lookup: " + lookup.action.conditional
        switch lookup.action {
        case .failed: text += ": " + (lookup.error ?? "unknown error")
        case .created: text += " (not imported before)"
        default: if let note = lookup.note { text += " (\(note))" }
        }
        return PrintableText.printable(text)
    }

    // MARK: Reading the payload

    /// The organizer and the number of attendees the import wrote into the notes ("Organizer: …",
    /// "Attendees: …", the last paragraph `EventDecoder` writes when nobody is mailed).
    static func people(_ payload: GraphEvent) -> (organizer: String?, attendees: Int) {
        guard payload.attendees?.isEmpty ?? true, let body = payload.body?.content else { return (nil, 0) }
        var organizer: String?
        var attendees = 0
        for line in body.split(separator: "\n") {
            if line.hasPrefix("Organizer: ") {
                let person = line.dropFirst("Organizer: ".count)
                organizer = String(person.split(separator: "<").first ?? person).trimmingCharacters(in: .whitespaces)
            } else if line.hasPrefix("Attendees: ") {
                // One address per attendee; a name without an address counts once too.
                attendees = max(1, line.filter { $0 == "@" }.count)
            }
        }
        return (organizer, attendees)
    }

    /// The zone the event's times were given in (the Windows zone of the payload, read back to IANA).
    static func zone(of payload: GraphEvent) -> ResolvedZone? {
        guard case .resolved(let zone, _) = ZoneResolver.resolve(payload.start?.timeZone) else { return nil }
        return zone
    }

    /// The local date-time of a payload time as written (for all-day dates).
    static func civil(_ value: GraphDateTimeTimeZone?) -> CivilDateTime? {
        value?.dateTime.flatMap(GraphTimestamp.parse)?.civil
    }

    static func patternName(_ type: String) -> String {
        switch type {
        case "daily": "daily"
        case "weekly": "weekly"
        case "absoluteMonthly", "relativeMonthly": "monthly"
        case "absoluteYearly", "relativeYearly": "yearly"
        default: type
        }
    }
}

extension String {
    /// `Busy` from `busy`.
    fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
