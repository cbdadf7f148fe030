import Foundation
import GraphStandIn

/// The recurring series `graph-standin --series N` seeds, shaped as Graph returns a series that was edited
/// in Outlook: a master with its `patternedRecurrence`, its occurrences, one occurrence moved and renamed,
/// one renamed only, and one cancelled (absent, as Graph leaves a deleted occurrence out of every view).
///
/// Series take turns over six zones (both hemispheres, half-hour offsets, no DST) and three patterns
/// (daily, every other day, weekly on two weekdays), six occurrences each (five every other day), at a
/// time of day between 07:00 and 16:30 in the series' zone, 45 minutes long. The stand-in expands no
/// seeded recurrence, so the occurrences are computed here, on the same wall clock as the pattern.
struct SeriesSeed {
    /// A zone as Outlook names it and the IANA rules that give its offsets.
    struct Zone {
        var windows: String
        var iana: String
    }

    static let zones = [
        Zone(windows: "W. Europe Standard Time", iana: "Europe/Berlin"),
        Zone(windows: "Pacific Standard Time", iana: "America/Los_Angeles"),
        Zone(windows: "Tokyo Standard Time", iana: "Asia/Tokyo"),
        Zone(windows: "AUS Eastern Standard Time", iana: "Australia/Sydney"),
        Zone(windows: "India Standard Time", iana: "Asia/Kolkata"),
        Zone(windows: "UTC", iana: "UTC"),
    ]

    /// Which series this is (0-based): it decides the zone, the pattern, the day and the time.
    var index: Int
    /// The first day series may start on (00:00 UTC) and how many days they spread over.
    var from: Date
    var days: Int

    var zone: Zone { Self.zones[index % Self.zones.count] }
    var subject: String { "Series \(index + 1)" }

    /// Seeds the master, its occurrences and exceptions; returns how many events were stored.
    @discardableResult
    func seed(into standIn: GraphStandIn) throws -> Int {
        let slots = occurrenceStarts()
        let token = Self.randomToken()
        let masterUID = Self.globalObjectID(date: nil, token: token)
        let masterID = try standIn.addEvent(master(first: slots[0], count: slots.count, uid: masterUID))
        var stored = 1
        for (number, start) in slots.enumerated() where number != 3 {  // the fourth is cancelled
            try standIn.addEvent(instance(number, start: start, masterID: masterID, token: token))
            stored += 1
        }
        return stored
    }

    // MARK: Shapes

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone.iana) ?? .gmt
        return calendar
    }

    private var pattern: [String: Any] {
        switch index % 3 {
        case 0: return ["type": "daily", "interval": 1]
        case 1: return ["type": "daily", "interval": 2]
        default:
            let weekday = calendar.component(.weekday, from: firstStart) - 1
            let names = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
            return [
                "type": "weekly", "interval": 1, "firstDayOfWeek": "monday",
                "daysOfWeek": [names[weekday], names[(weekday + 2) % 7]],
            ]
        }
    }

    /// The first occurrence's start: on day `index % days` after `from` (in the series' zone), at
    /// 07:00 plus `index % 10` hours, on the half hour for odd series.
    private var firstStart: Date {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = .gmt
        let date = utc.dateComponents(
            [.year, .month, .day], from: from.addingTimeInterval(Double(index % max(days, 1)) * 86_400))
        let start = DateComponents(
            year: date.year, month: date.month, day: date.day, hour: 7 + index % 10, minute: index % 2 == 0 ? 0 : 30)
        return calendar.date(from: start) ?? from
    }

    /// The pattern's occurrences in order, on the first start's wall-clock time in the series' zone.
    func occurrenceStarts() -> [Date] {
        let first = firstStart
        let time = calendar.dateComponents([.hour, .minute], from: first)
        let count = index % 3 == 1 ? 5 : 6
        let step = index % 3 == 1 ? 2 : 1
        var starts: [Date] = []
        var offset = 0
        while starts.count < count {
            guard let day = calendar.date(byAdding: .day, value: offset, to: first),
                let start = calendar.date(bySettingHour: time.hour ?? 0, minute: time.minute ?? 0, second: 0, of: day)
            else { break }
            if index % 3 != 2 || [0, 2].contains(offset % 7) { starts.append(start) }
            offset += step
        }
        return starts
    }

    private func master(first: Date, count: Int, uid: String) -> [String: Any] {
        [
            "type": "seriesMaster", "subject": subject, "iCalUId": uid,
            "start": when(first), "end": when(first.addingTimeInterval(45 * 60)),
            "recurrence": [
                "pattern": pattern,
                "range": [
                    "type": "numbered", "startDate": localDate(first), "numberOfOccurrences": count,
                    "recurrenceTimeZone": zone.windows,
                ],
            ] as [String: Any],
        ]
    }

    /// Occurrence `number`: the second is moved an hour later and renamed, the third renamed, the others
    /// as the pattern has them.
    private func instance(_ number: Int, start slot: Date, masterID: String, token: String) -> [String: Any] {
        let start = number == 1 ? slot.addingTimeInterval(3600) : slot
        let subject = [1: "\(subject) (moved)", 2: "\(subject) (renamed)"][number] ?? subject
        return [
            "type": number == 1 || number == 2 ? "exception" : "occurrence", "seriesMasterId": masterID,
            "subject": subject, "iCalUId": Self.globalObjectID(date: localDate(slot), token: token),
            "originalStart": Self.utcStamp(slot), "originalStartTimeZone": zone.windows,
            "originalEndTimeZone": zone.windows,
            "start": when(start), "end": when(start.addingTimeInterval(45 * 60)),
        ]
    }

    private func when(_ instant: Date) -> [String: Any] {
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: instant)
        let text = String(
            format: "%04d-%02d-%02dT%02d:%02d:00.0000000", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
            parts.hour ?? 0, parts.minute ?? 0)
        return ["dateTime": text, "timeZone": zone.windows]
    }

    private func localDate(_ instant: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    static func utcStamp(_ instant: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let p = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: instant)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02dZ", p.year ?? 0, p.month ?? 0, p.day ?? 0, p.hour ?? 0,
            p.minute ?? 0, p.second ?? 0)
    }

    /// An Outlook global object id as Graph's `iCalUId` shows it: the master's has no date, an
    /// occurrence's carries its original date (`YYYY` `MM` `DD` in bytes 16 to 19); `token` is the rest,
    /// the same for a master and its occurrences.
    static func globalObjectID(date: String?, token: String) -> String {
        let prefix = "040000008200E00074C5B7101A82E008"
        let day: String
        if let date {
            let parts = date.split(separator: "-").compactMap { Int($0) }
            day = String(format: "%04X%02X%02X", parts[0], parts[1], parts[2])
        } else {
            day = "00000000"
        }
        return prefix + day + token
    }

    /// 24 random bytes in hex: what makes one series' ids its own.
    static func randomToken() -> String {
        (0..<24).map { _ in String(format: "%02X", UInt8.random(in: 0...255)) }.joined()
    }
}
