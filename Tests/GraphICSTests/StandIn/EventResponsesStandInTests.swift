import Foundation
import GraphStandIn
import Testing

/// The stand-in's answers to invitations (accept, tentativelyAccept, decline) and the mail its meeting
/// writes would send: what graph-ics's delete, edit and respond are tested against.
@Suite struct EventResponsesStandInTests {
    /// A meeting Ann organises that Adele (the fixture's user) was invited to.
    static func invitation(_ fixture: StandInFixture) throws -> String {
        var json = StandInFixture.event("All hands", "2026-12-01T09:00:00", "2026-12-01T10:00:00")
        json["isOrganizer"] = false
        json["organizer"] = ["emailAddress": ["name": "Ann Lee", "address": "ann@contoso.example"]]
        json["attendees"] = [["type": "required", "emailAddress": ["address": "adele@contoso.example"]]]
        return try fixture.standIn.addEvent(json)
    }

    @Test func eachActionAnswers202AndSetsTheResponseStatus() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let id = try Self.invitation(fixture)
        for (action, status) in [
            ("accept", "accepted"), ("tentativelyAccept", "tentativelyAccepted"), ("decline", "declined"),
        ] {
            let answer = try fixture.call("POST", "/me/events/\(id)/\(action)", json: ["comment": "Hi"])
            #expect(answer.status == 202, "\(action): \(answer.status)")
            #expect(answer.body.isEmpty)
            let event = try fixture.call("GET", "/me/events/\(id)")
            #expect((event.json["responseStatus"] as? [String: Any])?["response"] as? String == status)
        }
        #expect(
            fixture.standIn.sentResponses.map(\.response) == ["accepted", "tentativelyAccepted", "declined"],
            "sendResponse defaults to true")
        #expect(fixture.standIn.sentResponses.allSatisfy { $0.to == "ann@contoso.example" && $0.comment == "Hi" })
    }

    @Test func sendResponseFalseMailsNobody() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let id = try Self.invitation(fixture)
        let answer = try fixture.call("POST", "/me/events/\(id)/decline", json: ["sendResponse": false])
        #expect(answer.status == 202)
        #expect(fixture.standIn.sentResponses.isEmpty)
    }

    @Test func parametersAreCheckedAsTheActionsDeclareThem() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let id = try Self.invitation(fixture)
        let cases: [(String, [String: Any], String)] = [
            ("accept", ["Comment ": "x"], "BadRequest"),
            ("accept", ["proposedNewTime": [:] as [String: Any]], "BadRequest"),
            ("accept", ["sendResponse": "yes"], "BadRequest"),
            ("decline", ["comment": 3], "BadRequest"),
            ("decline", ["proposedNewTime": [:] as [String: Any], "sendResponse": false], "ErrorInvalidRequest"),
        ]
        for (action, body, code) in cases {
            let answer = try fixture.call("POST", "/me/events/\(id)/\(action)", json: body)
            #expect(answer.status == 400, "\(action) \(body)")
            #expect((answer.json["error"] as? [String: Any])?["code"] as? String == code, "\(action) \(body)")
        }
        #expect(fixture.standIn.sentResponses.isEmpty)
    }

    @Test func theOrganizerHasNoInvitationToAnswerAndAnUnknownEventIs404() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let own = try fixture.call(
            "POST", "/me/events", json: StandInFixture.event("Mine", "2026-12-01T09:00:00", "2026-12-01T10:00:00"))
        let ownID = try #require(own.json["id"] as? String)
        #expect(try fixture.call("POST", "/me/events/\(ownID)/accept", json: [:] as [String: Any]).status == 400)
        #expect(try fixture.call("POST", "/me/events/AAMkNone/accept", json: [:] as [String: Any]).status == 404)
        #expect(try fixture.call("GET", "/me/events/\(ownID)/accept").status == 405)
    }

    @Test func changingAMeetingOneOrganisesMailsItsAttendeesAnUpdate() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        var meeting = StandInFixture.event("Review", "2026-12-01T09:00:00", "2026-12-01T10:00:00")
        meeting["attendees"] = [["type": "required", "emailAddress": ["address": "bo@contoso.example"]]]
        let created = try fixture.call("POST", "/me/events", json: meeting)
        let id = try #require(created.json["id"] as? String)
        #expect(fixture.standIn.sentUpdates.isEmpty)
        #expect(try fixture.call("PATCH", "/me/events/\(id)", json: ["subject": "Review 2"]).status == 200)
        #expect(fixture.standIn.sentUpdates == ["bo@contoso.example"])
        // An attendee's change to their own copy mails nobody.
        let invitation = try Self.invitation(fixture)
        #expect(try fixture.call("PATCH", "/me/events/\(invitation)", json: ["subject": "Mine now"]).status == 200)
        #expect(fixture.standIn.sentUpdates == ["bo@contoso.example"])
        // The organizer's change of only their reminder mails nobody either (on no page; MailingRule agrees).
        let reminder: [String: Any] = ["isReminderOn": true, "reminderMinutesBeforeStart": 30]
        #expect(try fixture.call("PATCH", "/me/events/\(id)", json: reminder).status == 200)
        #expect(fixture.standIn.sentUpdates == ["bo@contoso.example"])
    }
}
