import ICalBridge

/// How graph-ics writes when an event is: `add`'s note, the labels of `edit`, `delete` and `respond`, the
/// import card, on the clock `display.time` chooses (``ViewSettings/twelveHour``). Times of day are the
/// views' own (``ViewText/time(_:twelveHour:)``), so `agenda`, `week` and `month` write them alike.
struct EventWhen {
    /// How a day is named.
    enum Days {
        /// `Tuesday 1 December 2026` (``ViewText/heading(_:)``).
        case long
        /// `Tue 1 Dec 2026`, for the import card.
        case short
    }

    var twelveHour: Bool
    var days: Days

    init(twelveHour: Bool = false, days: Days = .long) {
        self.twelveHour = twelveHour
        self.days = days
    }

    /// The clock the user's configuration (`display.time`, else the locale) chooses.
    init(_ config: UserConfig, days: Days = .long) {
        self.init(twelveHour: ViewSettings(config).twelveHour, days: days)
    }

    static let shortWeekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let shortMonths = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Tuesday 1 December 2026`, or `Tue 1 Dec 2026`.
    func day(_ date: CivilDateTime) -> String {
        switch days {
        case .long: ViewText.heading(date)
        case .short:
            "\(Self.shortWeekdays[date.isoWeekday - 1]) \(date.day) \(Self.shortMonths[date.month - 1]) \(date.year)"
        }
    }

    /// `09:30`, or `9:30am`.
    func time(_ local: CivilDateTime) -> String {
        ViewText.time(local, twelveHour: twelveHour)
    }

    /// `Tuesday 1 December 2026 09:30`, the instant in `zone`.
    func moment(_ instant: Int64, in zone: ResolvedZone) -> String {
        let local = zone.localTime(at: instant)
        return day(local.date) + " " + time(local)
    }

    /// `Tuesday 1 December 2026 09:30–10:15`, the end's day added when it is another; without the start's day
    /// when `withDay` is false.
    func span(_ start: Int64, _ end: Int64, in zone: ResolvedZone, withDay: Bool = true) -> String {
        let from = zone.localTime(at: start)
        let to = zone.localTime(at: end)
        var text = (withDay ? day(from.date) + " " : "") + time(from) + "–"
        if to.date != from.date { text += day(to.date) + " " }
        return text + time(to)
    }
}
