import Foundation
import GraphICS
import ICalBridge

/// The calendars a command reads: `--calendar` (repeatable), `--all-calendars`, the config's
/// `defaults.calendar`, or the mailbox's default calendar.
struct CalendarSet {
    /// One calendar read: its id (nil: the default calendar) and its name.
    struct Member: Equatable {
        var id: String?
        var name: String?
    }

    var members: [Member]

    /// Whether events are read from more than one calendar, so that each says which it came from.
    var isSeveral: Bool { members.count > 1 }

    /// `--calendar NAME|ID`, repeatable, and `--all-calendars`: declared here once for export and agenda.
    struct Declarations: OptionGroup {
        let calendar = Option.calendar(
            help: "Read this calendar (see 'graph-ics calendars'); repeat it to read several into one "
                + "output. Default: defaults.calendar in the config file, else the default calendar."
        ).repeatable()
        let allCalendars = Flag("--all-calendars", help: "Read every calendar of the mailbox into one output.")
    }

    /// What the command line asked for, before any calendar is looked up.
    struct Request: Equatable {
        var names: [String]
        var all: Bool

        init(_ parsed: Parsed<Declarations>) throws(UsageError) {
            names = try parsed[\.calendar]
            all = parsed[\.allCalendars]
            if all && !names.isEmpty { throw UsageError("give --calendar or --all-calendars, not both") }
        }
    }

    /// Looks the calendars up: every one for `--all-calendars` (the default first), each `--calendar`
    /// once in the order given, else `defaults.calendar`, else the default calendar.
    static func resolve(_ request: Request, session: Session) throws -> CalendarSet {
        let client = session.client
        if request.all {
            let calendars = try client.calendars().sorted {
                ($0.isDefaultCalendar == true) && $1.isDefaultCalendar != true
            }
            return CalendarSet(members: calendars.map { Member(id: $0.id, name: $0.name) })
        }
        let names = request.names.isEmpty ? [session.calendar(nil)].compactMap { $0 } : request.names
        guard names.count > 1 else {
            let id = try CalendarChoice.id(for: names.first, in: client)
            return CalendarSet(members: [Member(id: id, name: nil)])
        }
        var members: [Member] = []
        let calendars = try client.calendars()
        for name in names {
            let id = try CalendarChoice.id(for: name, in: client)
            guard !members.contains(where: { $0.id == id }) else { continue }
            members.append(Member(id: id, name: calendars.first { $0.id == id }?.name ?? name))
        }
        return CalendarSet(members: members)
    }

    /// Reads calendarView over `start..<end` of every member, handing each page's events to `body` with
    /// the member's name (nil for a single calendar). An event two calendars hold (the same `iCalUId`
    /// and start) is handed over once, for the first calendar in order.
    func events(
        _ client: GraphClient, start: Date, end: Date,
        _ body: (_ document: GraphEventDocument, _ page: String, _ calendar: String?) throws -> Void
    ) throws {
        var seen = Set<String>()
        var page = 0
        for member in members {
            try client.calendarView(calendarID: member.id, start: start, end: end) { data in
                page += 1
                let label = "calendarView page \(page)"
                var document = try GraphEventDocument.decode(data, file: label)
                if isSeveral {
                    document.events.removeAll { event in
                        guard let uid = event.iCalUId else { return false }
                        return !seen.insert(uid + "|" + (event.start?.dateTime ?? "")).inserted
                    }
                }
                try body(document, label, isSeveral ? member.name : nil)
            }
        }
    }
}
