internal import CLibical
import Foundation

/// Turns the VEVENTs of an `.ics` file into an ``ImportPlan``: Graph payloads with exact instants and Windows
/// zone names, ticket-safe by default, recurrences mapped or expanded, never approximated.
public enum ICSToGraph {
    /// Reads `data` (named `options.file`) and plans its import with `settings`; libical's trees of the file
    /// are freed before it returns. The plan is final: each event carries `settings` and its payload is what
    /// `import` sends with them (identity and version properties, transactionId, attendees only when
    /// ``ImportSettings/notifiesAttendees``).
    ///
    /// - Throws: ``ICalBridgeError`` (`.badInput`) when the input holds no iCalendar data at all. Problems
    ///   with single events are diagnostics in the plan; those events are left out.
    public static func plan(
        _ data: Data, options: ImportOptions, settings: ImportSettings = ImportSettings()
    ) throws(ICalBridgeError) -> ImportPlan {
        plan(try ICSDocument(data, file: options.file), options: options, settings: settings)
    }

    static func plan(_ document: ICSDocument, options: ImportOptions, settings: ImportSettings) -> ImportPlan {
        document.withEvents { events in
            let options = {
                var options = options
                options.expansionBudget = expansionBudget(
                    filteringRecurrenceRules: events.reduce(0) { $0 + $1.filteringRecurrenceRules })
                return options
            }()
            var decoder = EventDecoder(options: options, settings: settings)
            var plan = ImportPlan()
            plan.diagnostics = document.diagnostics
            plan.sourceEvents = events.count
            // Overrides (RECURRENCE-ID) belong to the series with their UID when it is in the file.
            var mastersByUID: [String: Int] = [:]
            var overrides: [String: [ICSDocument.Event]] = [:]
            var masters: [(event: ICSDocument.Event, uid: String)] = []
            for event in events {
                if event.isOverride {
                    overrides[event.uid, default: []].append(event)
                } else {
                    mastersByUID[event.uid] = masters.count
                    masters.append((event, event.uid))
                }
            }
            // Events are independent: slices of them are planned on all cores, each by its own decoder, and
            // joined in file order.
            let slices = Parallel.slices(count: masters.count, minimum: 128)
            if slices.count > 1 {
                let done = Parallel.mapEach(count: slices.count) { slice in
                    var decoder = EventDecoder(options: options, settings: settings)
                    var events: [PlannedEvent] = []
                    for (event, uid) in masters[slices[slice]] {
                        events += decoder.plan(event, overrides: overrides[uid] ?? [])
                    }
                    return (decoder: decoder, events: events)
                }
                var planned = done.map(\.events)
                plan.events = Parallel.concatenated(&planned)
                for slice in done {
                    decoder.diagnostics += slice.decoder.diagnostics
                    decoder.zoneResolutions.merge(slice.decoder.zoneResolutions) { first, _ in first }
                    decoder.readsFloatingTimes = decoder.readsFloatingTimes || slice.decoder.readsFloatingTimes
                }
            } else {
                for (event, uid) in masters {
                    plan.events += decoder.plan(event, overrides: overrides[uid] ?? [])
                }
            }
            for (uid, events) in overrides.sorted(by: { $0.key < $1.key }) where mastersByUID[uid] == nil {
                // Occurrences whose series is not in the file (an invitation to one occurrence): events of their own.
                for event in events { plan.events += decoder.plan(event, overrides: []) }
            }
            plan.diagnostics += decoder.diagnostics
            plan.zoneResolutions = decoder.zoneResolutions
            plan.readsFloatingTimes = decoder.readsFloatingTimes
            if events.isEmpty {
                let what = document.otherComponents > 0 ? "only to-dos or journal entries, no events" : "no events"
                plan.diagnostics.append(Diagnostic(.error, "the file holds \(what)", file: options.file))
            }
            return plan
        }
    }
}

extension ICSToGraph {
    /// The work (libical steps, a few microseconds each) all filtering expansions of a file may take
    /// together: a fraction of a second.
    static let fileExpansionBudget = 30_000

    /// The budget of each RRULE of a file with `filteringRecurrenceRules` filtering RRULEs (see
    /// ``RecurrenceRule/isFiltering``): a share of ``fileExpansionBudget``, at least 100 units (a daily
    /// RRULE's 100 days), at most 3,000 (an hourly RRULE's four months, a daily RRULE's eight years).
    static func expansionBudget(filteringRecurrenceRules: Int) -> Int {
        min(3_000, max(100, fileExpansionBudget / max(1, filteringRecurrenceRules)))
    }
}
