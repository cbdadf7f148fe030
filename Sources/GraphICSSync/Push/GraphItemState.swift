import Foundation
import GraphICS

/// What a push reads of an event before changing or deleting it (`GET events/{id}`).
struct GraphItemState {
    var id: String
    var changeKey: String?
    /// `@odata.etag`, what `If-Match` sends to change the event only as it is now.
    var etag: String?
    var type: String?
    var isOrganizer: Bool
    var attendees: Int
    /// The subject, for the report of an item whose file is gone.
    var subject: String?

    /// Reads Graph's JSON of one event; throws a ``GraphError`` when it is not one.
    init(_ data: Data, operation: String) throws {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let id = object["id"] as? String
        else {
            throw GraphError(.other, operation: operation, message: "Graph's answer could not be read: not an event")
        }
        self.id = id
        changeKey = object["changeKey"] as? String
        etag = object["@odata.etag"] as? String
        type = object["type"] as? String
        // An event without the field is one the user made (Graph always sends it).
        isOrganizer = object["isOrganizer"] as? Bool ?? true
        attendees = (object["attendees"] as? [Any])?.count ?? 0
        subject = object["subject"] as? String
    }

    /// Whether Graph would mail attendees about a change or deletion: a meeting the user organises.
    var mailsAttendees: Bool { isOrganizer && attendees > 0 }

    /// The `If-Match` value for a recorded change key (Graph's etag is `W/"changeKey"`).
    static func etag(forChangeKey changeKey: String) -> String {
        "W/\"\(changeKey)\""
    }
}
