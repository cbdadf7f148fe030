import Foundation
import GraphICS

/// Finds the calendar `--calendar` names: an id as is, else a name (case-insensitive, must be unique).
enum CalendarChoice {
    static func id(for nameOrID: String?, in client: GraphClient) throws -> String? {
        guard let nameOrID, !nameOrID.isEmpty else { return nil }
        let calendars = try client.calendars()
        if calendars.contains(where: { $0.id == nameOrID }) { return nameOrID }
        let matches = calendars.filter { ($0.name ?? "").caseInsensitiveCompare(nameOrID) == .orderedSame }
        guard let match = matches.first else {
            let names = calendars.compactMap(\.name).map { "'\($0)'" }.joined(separator: ", ")
            throw CommandFailure(.inputMissing, "no calendar named '\(nameOrID)' (there are: \(names))")
        }
        guard matches.count == 1 else {
            throw CommandFailure(
                .usage, "\(matches.count) calendars are named '\(nameOrID)'; give its id (see 'graph-ics calendars')")
        }
        return match.id
    }

    /// The id of the calendar `--calendar` names, nil for none and for the default calendar, also when
    /// `--calendar` names it: an event imported there without `--calendar` is found, not imported a second
    /// time (`import`, `import --undo`, `sync`).
    static func nonDefaultID(for nameOrID: String?, in client: GraphClient) throws -> String? {
        guard let id = try CalendarChoice.id(for: nameOrID, in: client) else { return nil }
        let isDefault = try client.calendars().contains { $0.id == id && $0.isDefaultCalendar == true }
        return isDefault ? nil : id
    }
}
