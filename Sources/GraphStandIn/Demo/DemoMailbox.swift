// The mailbox `graph-ics demo` shows: a realistic working week in Outlook, seeded relative to the week it
// runs in, as Graph returns such events (a series edited in Outlook, an all-day event, a flight across
// zones, a private appointment, a Teams meeting). It is Swift source, not a resource file, so that an
// installed graph-ics carries it.
import Foundation

/// The demo's mailbox in a ``GraphStandIn``: who it belongs to and the events a demo step changes "in
/// Outlook".
public struct DemoMailbox: Sendable {
    /// The mailbox's zone as Outlook names it, and the IANA rules that give its offsets.
    public static let windowsZone = "W. Europe Standard Time"
    public static let ianaZone = "Europe/Berlin"
    public static let displayName = "Ana Example"
    public static let mail = "ana@contoso.example"

    /// The Monday (00:00 in the mailbox's zone) of the week the events are in.
    public let monday: Date
    /// The Teams meeting, which the demo renames "in Outlook" between two syncs.
    public let planningID: String
    /// The stand-up series' master.
    public let standUpID: String
    /// How many events were stored (a series' master and occurrences counted one by one).
    public let storedEvents: Int

    /// Adds the demo's user to `standIn` and seeds its week: the ISO week (Monday first) of `now` in the
    /// mailbox's zone.
    public static func seed(into standIn: GraphStandIn, now: Date = Date()) throws -> DemoMailbox {
        standIn.addUser(displayName: displayName, mail: mail, mailboxTimeZone: windowsZone)
        let week = DemoWeek(now: now)
        var stored = 0
        let standUp = try week.seedStandUp(into: standIn, stored: &stored)
        let planning = try standIn.addEvent(week.planning())
        for event in [week.dentist(), week.flight(), week.offsite(), week.oneOnOne()] {
            try standIn.addEvent(event)
        }
        stored += 5
        return DemoMailbox(monday: week.monday, planningID: planning, standUpID: standUp, storedEvents: stored)
    }
}

/// The events of the demo week, as Graph JSON objects, on the wall clock of the mailbox's zone.
struct DemoWeek {
    let calendar: Calendar
    let monday: Date

    init(now: Date) {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: DemoMailbox.ianaZone) ?? .gmt
        self.calendar = calendar
        monday = calendar.dateInterval(of: .weekOfYear, for: now)?.start ?? now
    }

    /// `day` days after Monday at `hour`:`minute` in the mailbox's zone.
    func instant(day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
        let date = calendar.date(byAdding: .day, value: day, to: monday) ?? monday
        return calendar.date(bySettingHour: hour, minute: minute, second: 0, of: date) ?? date
    }

    /// `{dateTime, timeZone}` for a wall-clock time in `zone` (the mailbox's unless given).
    func when(_ instant: Date, zone: String = DemoMailbox.windowsZone, iana: String = DemoMailbox.ianaZone)
        -> [String: Any]
    {
        var local = calendar
        local.timeZone = TimeZone(identifier: iana) ?? .gmt
        let p = local.dateComponents([.year, .month, .day, .hour, .minute], from: instant)
        let text = String(
            format: "%04d-%02d-%02dT%02d:%02d:00.0000000", p.year ?? 0, p.month ?? 0, p.day ?? 0, p.hour ?? 0,
            p.minute ?? 0)
        return ["dateTime": text, "timeZone": zone]
    }

    func localDate(_ instant: Date) -> String {
        let p = calendar.dateComponents([.year, .month, .day], from: instant)
        return String(format: "%04d-%02d-%02d", p.year ?? 0, p.month ?? 0, p.day ?? 0)
    }

    static func person(_ name: String, _ address: String) -> [String: Any] {
        ["emailAddress": ["name": name, "address": address]]
    }

    static func attendee(_ name: String, _ address: String, _ response: String) -> [String: Any] {
        [
            "type": "required", "status": ["response": response, "time": "0001-01-01T00:00:00Z"],
            "emailAddress": ["name": name, "address": address],
        ]
    }

    static func place(_ name: String) -> [String: Any] { ["displayName": name] }

    static func text(_ content: String) -> [String: Any] { ["contentType": "text", "content": content] }

    // MARK: The stand-up: a daily series, Wednesday's moved, Thursday's cancelled

    /// A weekday stand-up at 09:30 as Outlook keeps it after two edits: Wednesday's occurrence moved to
    /// 11:00 for the all-hands, Thursday's cancelled (absent from every view, as Graph leaves it out).
    func seedStandUp(into standIn: GraphStandIn, stored: inout Int) throws -> String {
        let token = GraphStandIn.randomHex(bytes: 24)
        let first = instant(day: 0, 9, 30)
        let master: [String: Any] = [
            "type": "seriesMaster", "subject": "Team stand-up", "iCalUId": Self.globalObjectID(nil, token),
            "start": when(first), "end": when(first.addingTimeInterval(15 * 60)),
            "location": Self.place("Room 2.01"), "categories": ["Team"],
            "organizer": Self.person(DemoMailbox.displayName, DemoMailbox.mail),
            "recurrence": [
                "pattern": [
                    "type": "weekly", "interval": 1, "firstDayOfWeek": "monday",
                    "daysOfWeek": ["monday", "tuesday", "wednesday", "thursday", "friday"],
                ] as [String: Any],
                "range": [
                    "type": "numbered", "startDate": localDate(first), "numberOfOccurrences": 5,
                    "recurrenceTimeZone": DemoMailbox.windowsZone,
                ],
            ] as [String: Any],
        ]
        let masterID = try standIn.addEvent(master)
        stored += 1
        for day in [0, 1, 2, 4] {
            let slot = instant(day: day, 9, 30)
            let moved = day == 2
            let start = moved ? instant(day: day, 11, 0) : slot
            try standIn.addEvent([
                "type": moved ? "exception" : "occurrence", "seriesMasterId": masterID,
                "subject": moved ? "Team stand-up (after the all-hands)" : "Team stand-up",
                "iCalUId": Self.globalObjectID(localDate(slot), token), "originalStart": Self.utcStamp(slot),
                "originalStartTimeZone": DemoMailbox.windowsZone, "originalEndTimeZone": DemoMailbox.windowsZone,
                "start": when(start), "end": when(start.addingTimeInterval(15 * 60)),
                "location": Self.place("Room 2.01"), "categories": ["Team"],
            ])
            stored += 1
        }
        return masterID
    }

    // MARK: Single events

    /// Tuesday 15:00–16:00, a Teams meeting organised by a colleague, accepted.
    func planning() -> [String: Any] {
        let start = instant(day: 1, 15)
        let join = "https://teams.microsoft.com/l/meetup-join/19%3ameeting_ZGVtbyBtZWV0aW5n%40thread.v2/0"
        return [
            "subject": "Quarterly planning", "start": when(start), "end": when(start.addingTimeInterval(3600)),
            "isOnlineMeeting": true, "onlineMeetingProvider": "teamsForBusiness",
            "onlineMeeting": ["joinUrl": join, "conferenceId": "346223487519"],
            "location": Self.place("Microsoft Teams Meeting"),
            "body": Self.text("Agenda: the roadmap for next quarter.\nJoin: \(join)"),
            "organizer": Self.person("Megan Bowen", "megan@contoso.example"), "isOrganizer": false,
            "responseStatus": ["response": "accepted", "time": "0001-01-01T00:00:00Z"],
            "attendees": [
                Self.attendee("Megan Bowen", "megan@contoso.example", "none"),
                Self.attendee(DemoMailbox.displayName, DemoMailbox.mail, "accepted"),
                Self.attendee("Adele Vance", "adele@contoso.example", "tentativelyAccepted"),
            ],
        ]
    }

    /// Wednesday 08:00–08:45, private: a feed or a limited export shows it as a busy block.
    func dentist() -> [String: Any] {
        let start = instant(day: 2, 8)
        return [
            "subject": "Dentist", "sensitivity": "private", "start": when(start),
            "end": when(start.addingTimeInterval(45 * 60)), "location": Self.place("Dr. Weiss, Torstraße 12"),
        ]
    }

    /// Thursday, Frankfurt 10:55 → New York 13:35: the start in the mailbox's zone, the end in New York's.
    func flight() -> [String: Any] {
        let start = instant(day: 3, 10, 55)
        let end = start.addingTimeInterval(8 * 3600 + 40 * 60)
        return [
            "subject": "Flight LH 400 Frankfurt (FRA) → New York (JFK)", "showAs": "oof", "categories": ["Travel"],
            "start": when(start), "end": when(end, zone: "Eastern Standard Time", iana: "America/New_York"),
            "location": Self.place("Frankfurt Airport, Terminal 1"),
            "body": Self.text("Booking reference X7KQ2P, seat 34K."),
        ]
    }

    /// Friday, all day: the days are dates, not instants, and must not move in any zone.
    func offsite() -> [String: Any] {
        let day = instant(day: 4, 0)
        return [
            "subject": "Team offsite", "isAllDay": true, "showAs": "workingElsewhere",
            "start": when(day), "end": when(instant(day: 5, 0)), "location": Self.place("Lakeside Lodge"),
        ]
    }

    /// Monday 13:00–13:30.
    func oneOnOne() -> [String: Any] {
        let start = instant(day: 0, 13)
        return [
            "subject": "1:1 with Sam", "start": when(start), "end": when(start.addingTimeInterval(30 * 60)),
            "organizer": Self.person(DemoMailbox.displayName, DemoMailbox.mail),
            "attendees": [Self.attendee("Sam Friend", "sam@contoso.example", "accepted")],
        ]
    }

    // MARK: Identifiers

    static func utcStamp(_ instant: Date) -> String {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = .gmt
        let p = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: instant)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02dZ", p.year ?? 0, p.month ?? 0, p.day ?? 0, p.hour ?? 0,
            p.minute ?? 0, p.second ?? 0)
    }

    /// An Outlook global object id as Graph's `iCalUId` shows it: the master's without a date, an
    /// occurrence's with its original date in bytes 16 to 19.
    static func globalObjectID(_ date: String?, _ token: String) -> String {
        let parts = date?.split(separator: "-").compactMap { Int($0) } ?? []
        let day = parts.count == 3 ? String(format: "%04X%02X%02X", parts[0], parts[1], parts[2]) : "00000000"
        return "040000008200E00074C5B7101A82E008" + day + token
    }
}
