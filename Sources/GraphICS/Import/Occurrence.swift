import Foundation

/// An occurrence of a series, as `/instances` returns it.
struct Occurrence {
    var id: String
    var type: String?
    /// The start the pattern gave it, seconds since the epoch (UTC).
    var originalStart: Int64?
    /// The date of its start as Graph shows it (`2027-01-19`), for all-day series.
    var startDate: String?
    /// Whether it is an online meeting (its body holds the meeting's blob, `api/event-update.md`).
    var isOnlineMeeting = false

    static func list(from body: Data) -> (occurrences: [Occurrence], nextLink: String?)? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let values = object["value"] as? [[String: Any]]
        else { return nil }
        let occurrences = values.compactMap { value -> Occurrence? in
            guard let id = value["id"] as? String else { return nil }
            let original = (value["originalStart"] as? String).flatMap(FollowUpTime.instant)
            let start = (value["start"] as? [String: Any])?["dateTime"] as? String
            return Occurrence(
                id: id, type: value["type"] as? String, originalStart: original,
                startDate: start.map { String($0.prefix(10)) },
                isOnlineMeeting: value["isOnlineMeeting"] as? Bool ?? false)
        }
        return (occurrences, object["@odata.nextLink"] as? String)
    }
}
