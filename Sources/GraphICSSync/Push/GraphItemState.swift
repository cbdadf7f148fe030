import Foundation
import GraphICS
import ICalBridge

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

/// How a changed event goes to Graph: decided in one place for sync's push and the CalDAV gateway, from
/// Graph's event as it is (the baseline of ``EventChange``), the one ``MailingRule``, and what Graph cannot
/// take.
public enum UpdateDecision {
    /// Not sent, for the reason given (an online meeting's description, a series made single).
    case refused(String)
    /// Not sent: Graph would mail the event's attendees, and the user did not allow that.
    case held(attendees: Int)
    case send(UpdatePlan)
}

/// What an update sends.
public struct UpdatePlan {
    /// Only what changed against Graph's event; nil when nothing did, or when that could not be read (`whole`).
    public var change: EventChange?
    /// The whole payload is sent (without the body of an online meeting): the change against Graph's event
    /// could not be read.
    public var whole: Bool
    /// A series whose occurrences are applied again, whatever its master's change.
    public var appliesOccurrences: Bool

    /// Whether anything goes to Graph (the master's PATCH or the occurrences).
    public var sends: Bool { whole || change != nil || appliesOccurrences }

    /// The master's PATCH when only the fields that changed are sent, with `extendedProperties` added; the
    /// whole payload when `whole`; nil when the master is not patched.
    public func patch(
        of event: PlannedEvent, graph: GraphItemState,
        adding extendedProperties: [GraphSingleValueExtendedProperty] = []
    ) throws -> Data? {
        if let change { return try change.payload(adding: extendedProperties) }
        guard whole else {
            guard !extendedProperties.isEmpty else { return nil }
            var onlyProperties = GraphEvent()
            onlyProperties.singleValueExtendedProperties = extendedProperties
            return try onlyProperties.jsonPayload()
        }
        // The change could not be read: Graph's body neither, so the body is left out without a word.
        var payload = OnlineMeetingBody.sendable(
            event.updatePayload, toOnlineMeeting: graph.standing.isOnlineMeeting, comparedWith: nil
        ).payload
        if !extendedProperties.isEmpty { payload.singleValueExtendedProperties = extendedProperties }
        return try payload.jsonPayload()
    }
}

extension GraphItemState {
    /// How `event` (the new version, as the import maps it) changes this event.
    /// - `appliesOccurrences`: a series' overrides and cancellations are applied again (an update for the
    ///   mail rule).
    /// - `answering`: the user attends and does not organise it; its attendees are answered (accept, decline),
    ///   never patched.
    /// - `alsoSending`: fields every PATCH carries besides the changes (sync's file property).
    /// - `mayMail`: whether the user allowed a write that mails the attendees.
    public func decideUpdate(
        to event: PlannedEvent, options: ImportOptions, appliesOccurrences: Bool, answering: Bool = false,
        alsoSending: Set<String> = [], mayMail: Bool
    ) -> UpdateDecision {
        var change: EventChange?
        var whole = false
        do {
            change = try EventChange.between(graphJSON: json, event, options: options)
        } catch {
            whole = true
        }
        if answering, var answered = change {
            answered.fields.remove("attendees")
            answered.patch.attendees = nil
            change = answered.fields.isEmpty ? nil : answered
        }
        // No body is ever sent to an online meeting (``OnlineMeetingBody``); a changed one is refused.
        let sendable = OnlineMeetingBody.sendable(change, toOnlineMeeting: standing.isOnlineMeeting)
        if sendable.leftOut { return .refused(OnlineMeetingBody.refusal) }
        change = sendable.change
        // A series' occurrences applied again are an update for the mail rule; a change of the event alone is a
        // PATCH of its fields (a reminder mails nobody).
        let plan = UpdatePlan(change: change, whole: whole, appliesOccurrences: appliesOccurrences)
        if plan.sends {
            let mailing: MailingRule.Change =
                whole || appliesOccurrences ? .update : .patch((change?.fields ?? []).union(alsoSending))
            if mails(mailing), !mayMail { return .held(attendees: attendees) }
        }
        if type == "seriesMaster", event.payload.recurrence == nil {
            return .refused(
                "Graph holds a series and the new version is a single event (no RRULE); Graph cannot make a "
                    + "series single: delete the event and save it as a new one")
        }
        return .send(plan)
    }
}
