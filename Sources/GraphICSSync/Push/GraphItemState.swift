import Foundation
import GraphICS

/// What a push reads of an event before changing or deleting it (`GET events/{id}`).
public struct GraphItemState: Sendable {
    public var id: String
    public var changeKey: String?
    /// `@odata.etag`, what `If-Match` sends to change the event only as it is now.
    public var etag: String?
    public var type: String?
    /// Who organises it and who attends it (``MailingRule`` decides from it whether a write mails them).
    public var standing: EventStanding
    public var attendees: Int { standing.attendees.count }
    /// The subject, for the report of an item whose file is gone.
    public var subject: String? { standing.subject.isEmpty ? nil : standing.subject }
    /// The event as Graph sent it: the baseline of ``EventChange``.
    public var json: Data

    /// Reads Graph's JSON of one event; throws a ``GraphError`` when it is not one.
    public init(_ data: Data, operation: String) throws {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let id = object["id"] as? String, let standing = EventStanding(object: object)
        else {
            throw GraphError(.other, operation: operation, message: "Graph's answer could not be read: not an event")
        }
        self.id = id
        changeKey = object["changeKey"] as? String
        etag = object["@odata.etag"] as? String
        type = object["type"] as? String
        self.standing = standing
        json = data
    }

    /// Whether `change` makes Graph mail the event's attendees (``MailingRule``).
    public func mails(_ change: MailingRule.Change) -> Bool {
        MailingRule.mails(change, standing)
    }

    /// The `If-Match` value for a recorded change key (Graph's etag is `W/"changeKey"`).
    public static func etag(forChangeKey changeKey: String) -> String {
        "W/\"\(changeKey)\""
    }
}
