import GraphICS
import ICalBridge

/// When an event takes place, as `--start`, `--end` or `--duration` and `--all-day` give it (`add`, `edit`):
/// read by ``TypedTime`` in the command's zone, placed in it (gaps moved forward, folds taken first, with a
/// warning each) and checked, end after start.
struct TypedSpan {
    var start: String
    /// `--end` as typed, or nil when `--duration` gives the length.
    var end: String?
    /// The `--duration` in seconds.
    var duration: Int64?
    var allDay: Bool

    /// Reads the options' texts; the times themselves are read by ``when(_:terminal:)``.
    init(start: String?, end: String?, duration: String?, allDay: Bool) throws(UsageError) {
        guard let start else { throw UsageError("--start is required") }
        switch (end, duration) {
        case (nil, nil):
            throw UsageError(
                allDay
                    ? "--end or --duration is required (--end is the day after the last one: --start 2026-12-01 "
                        + "--end 2026-12-02, or --duration 1d, is one day)"
                    : "--end or --duration is required (--end 11:00, --duration 30m)")
        case (_?, _?): throw UsageError("give --end or --duration, not both")
        default: break
        }
        self.start = start
        self.end = end
        self.duration = try duration.map { (text) throws(UsageError) in
            try TypedTime.duration(text, option: "--duration")
        }
        self.allDay = allDay
    }

    /// A new start for an event that keeps its length, `seconds` long (whole days for an all-day event).
    init(start: String, keeping seconds: Int64, allDay: Bool) {
        self.start = start
        end = nil
        duration = seconds
        self.allDay = allDay
    }

    /// The event's times in `typed`'s zone; warnings about gaps, folds and a moved end go to `terminal`
    /// (none when it is nil, as when the options are only checked).
    func when(_ typed: TypedTime, terminal: Terminal?) throws(UsageError) -> EventDraft.When {
        allDay ? try days(typed) : try timed(typed, terminal)
    }

    func days(_ typed: TypedTime) throws(UsageError) -> EventDraft.When {
        let first = try typed.day(start, option: "--start")
        let last: CivilDateTime
        if let end {
            last = try typed.day(end, option: "--end", relativeTo: first)
        } else {
            let seconds = duration ?? 0
            guard seconds > 0, seconds % 86_400 == 0 else {
                throw UsageError("--duration with --all-day is whole days (--duration 1d for one day)")
            }
            last = first.adding(days: Int(seconds / 86_400))
        }
        guard first < last else {
            throw UsageError(
                "--end \(end ?? "") must come after --start \(start): with --all-day --end is the day after "
                    + "the last one (--end \(first.adding(days: 1).dateString) for one day)")
        }
        return .allDay(first: first, end: last)
    }

    func timed(_ typed: TypedTime, _ terminal: Terminal?) throws(UsageError) -> EventDraft.When {
        let startMoment = try Self.moment(start, option: "--start", typed, relativeTo: typed.today)
        let startPlacement = typed.place(startMoment)
        let startInstant = Self.instant(startPlacement, typed: start, option: "--start", in: typed.zone, terminal)
        guard let end else { return .timed(start: startInstant, end: startInstant + (duration ?? 0)) }
        let startDay: CivilDateTime
        switch startMoment {
        case .local(let local): startDay = local.date
        case .instant(let instant): startDay = typed.zone.localTime(at: instant).date
        }
        let endMoment = try Self.moment(end, option: "--end", typed, relativeTo: startDay)
        if case .local(let from) = startMoment, case .local(let to) = endMoment, to < from {
            throw UsageError("--end \(end) is before --start \(start)")
        }
        var endInstant = Self.instant(typed.place(endMoment), typed: end, option: "--end", in: typed.zone, terminal)
        if case .skipped = startPlacement, case .local(let from) = startMoment, case .local(let to) = endMoment {
            endInstant = Self.keepingLength(
                start: startInstant, end: endInstant, asked: (from, to), typed.zone, terminal)
        }
        guard startInstant <= endInstant else {
            guard case .local = startMoment, case .local = endMoment else {
                // An instant (an event's own start in edit, or a time with an offset): say when it is here.
                let local = typed.zone.localTime(at: startInstant)
                throw UsageError(
                    "--end \(end) is before the start, \(AgendaText.heading(local.date)) \(AgendaText.time(local)) "
                        + "in \(typed.zone.name)")
            }
            throw UsageError(
                "--end \(end) is before --start \(start) in \(typed.zone.name) (clocks change in between)")
        }
        return .timed(start: startInstant, end: endInstant)
    }

    /// ``TypedTime/moment(_:option:relativeTo:)``, saying that a day alone asks for `--all-day`.
    static func moment(
        _ text: String, option: String, _ typed: TypedTime, relativeTo base: CivilDateTime
    ) throws(UsageError) -> TypedMoment {
        do {
            return try typed.moment(text, option: option, relativeTo: base)
        } catch {
            guard (try? typed.day(text, option: option)) != nil else { throw error }
            throw UsageError("\(error.message), or give --all-day")
        }
    }

    /// The end of an event whose start fell in a gap and was moved forward: the start plus the length the
    /// typed times ask for (`--start 02:30 --end 03:30` is an hour, not the nothing between 03:30 and 03:30),
    /// with a note when that moves the end.
    static func keepingLength(
        start: Int64, end: Int64, asked: (start: CivilDateTime, end: CivilDateTime), _ zone: ResolvedZone,
        _ terminal: Terminal?
    ) -> Int64 {
        let length = asked.end.secondsSinceEpoch - asked.start.secondsSinceEpoch
        let kept = start + length
        guard kept != end else { return end }
        terminal?.note(
            "the start moved forward, so the end moves too and the event keeps the \(duration(length)) asked for: "
                + "ends \(AgendaText.time(zone.localTime(at: kept))) \(AgendaText.offset(zone.utcOffset(at: kept)))")
        return kept
    }

    /// `1 h`, `1 h 30 min`, `45 min`.
    static func duration(_ seconds: Int64) -> String {
        let minutes = seconds / 60
        switch (minutes / 60, minutes % 60) {
        case (0, let rest): return "\(rest) min"
        case (let hours, 0): return "\(hours) h"
        case (let hours, let rest): return "\(hours) h \(rest) min"
        }
    }

    /// The instant of a typed time, with a warning when it fell in a gap or a fold.
    static func instant(
        _ placement: EventDraft.Placement, typed: String, option: String, in zone: ResolvedZone, _ terminal: Terminal?
    ) -> Int64 {
        switch placement {
        case .exact(let instant):
            return instant
        case .skipped(let instant):
            let moved = zone.localTime(at: instant)
            terminal?.warning(
                "\(option) \(typed) does not exist in \(zone.name) (the clocks go forward then); using "
                    + "\(AgendaText.time(moved)) \(AgendaText.offset(zone.utcOffset(at: instant)))")
            return instant
        case .repeated(let first, let second):
            terminal?.warning(
                "\(option) \(typed) occurs twice in \(zone.name) (the clocks go back then); using the first, "
                    + "\(AgendaText.offset(zone.utcOffset(at: first))) (not \(AgendaText.offset(zone.utcOffset(at: second)))"
                    + ")")
            return first
        }
    }
}
