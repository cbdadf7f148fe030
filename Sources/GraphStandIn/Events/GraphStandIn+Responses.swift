// Stands in for Graph's answers to an invitation: POST events/{id}/accept, tentativelyAccept and decline
// (api/event-accept.md, api/event-tentativelyaccept.md, api/event-decline.md): `comment` and `sendResponse`
// (default true), 202 with no body; the mailbox owner's `responseStatus` changes, and the answer Graph would
// mail the organizer is recorded unless `sendResponse` is false.
import Foundation

/// One answer to an invitation that Graph would have mailed to the organizer.
public struct SentResponse: Sendable, Equatable {
    /// The organizer's address.
    public var to: String
    /// `accepted`, `tentativelyAccepted` or `declined`.
    public var response: String
    public var comment: String?

    public init(to: String, response: String, comment: String?) {
        self.to = to
        self.response = response
        self.comment = comment
    }
}

extension GraphStandIn {
    /// The response status each action gives the event (`resources/responsestatus.md`).
    static let responseActions: [String: String] = [
        "accept": "accepted", "tentativelyaccept": "tentativelyAccepted", "decline": "declined",
    ]

    /// `POST events/{id}/{accept|tentativelyAccept|decline}`.
    func respondToEvent(
        _ route: GraphRoute, id: String, action: String, _ call: GraphCall, _ context: RequestContext
    ) -> LoopbackHTTPServer.Response {
        guard let response = Self.responseActions[action.lowercased()] else { return notFound(context) }
        guard let payload = Self.parseBody(call.body) else { return unreadableBody(context) }
        if let problem = checkResponseParameters(payload, action: action, context) { return problem }
        enum Outcome { case done, missing, organizer }
        let now = Date()
        let outcome: Outcome = locked { state in
            guard var event = state.events[id], event.userID == route.mailboxUserID else { return .missing }
            guard !event.isOrganizer else { return .organizer }
            event.fields["responseStatus"] = ["response": response, "time": Self.utcStamp(now)]
            Self.newVersion(of: &event, now: now)
            state.events[id] = event
            if payload["sendResponse"] as? Bool ?? true,
                let organizer = (event.fields["organizer"] as? [String: Any])?["emailAddress"] as? [String: Any],
                let address = organizer["address"] as? String
            {
                state.sentResponses.append(
                    SentResponse(to: address, response: response, comment: payload["comment"] as? String))
            }
            return .done
        }
        switch outcome {
        case .done: return LoopbackHTTPServer.Response(status: 202)
        case .missing: return notFound(context)
        case .organizer:
            return graphError(
                400, "ErrorInvalidRequest", "Your request can't be completed. You can't respond to your own meeting.",
                context)
        }
    }

    /// The parameters the actions take, typed as their pages give them: `comment` (String), `sendResponse`
    /// (Boolean), and for tentativelyAccept and decline `proposedNewTime`, which needs `sendResponse` true.
    func checkResponseParameters(_ payload: [String: Any], action: String, _ context: RequestContext)
        -> LoopbackHTTPServer.Response?
    {
        var known: Set<String> = ["comment", "sendresponse"]
        if action.lowercased() != "accept" { known.insert("proposednewtime") }
        if let unknown = payload.keys.sorted().first(where: { !known.contains($0.lowercased()) }) {
            return graphError(
                400, "BadRequest",
                "The parameter '\(unknown)' in the request payload is not a valid parameter for the operation "
                    + "'\(action)'.", context)
        }
        if let comment = payload["comment"], !(comment is String) {
            return graphError(
                400, "BadRequest", "Cannot convert the literal to the expected type 'Edm.String'.", context)
        }
        if let send = payload["sendResponse"], !(send is Bool) {
            return graphError(
                400, "BadRequest", "Cannot convert the literal to the expected type 'Edm.Boolean'.", context)
        }
        if payload["proposedNewTime"] != nil, payload["sendResponse"] as? Bool == false {
            return graphError(
                400, "ErrorInvalidRequest", "proposedNewTime can't be set when sendResponse is false.", context)
        }
        return nil
    }
}

extension GraphStandIn {
    /// One entry per answer to an invitation Graph would have mailed to its organizer.
    public var sentResponses: [SentResponse] { locked { $0.sentResponses } }

    /// One address per attendee Graph would have mailed a meeting update (a PATCH of a meeting the mailbox
    /// organises that changes more than its attendees).
    public var sentUpdates: [String] { locked { $0.sentUpdates } }

    /// The ids of online meetings a PATCH of their body disabled: the body sent without the meeting blob
    /// Graph keeps in it ("Inadvertently removing the meeting blob from the body would disable meeting
    /// online", api/event-update.md); the join link is gone for every attendee.
    public var disabledOnlineMeetings: [String] { locked { $0.disabledOnlineMeetings } }
}
