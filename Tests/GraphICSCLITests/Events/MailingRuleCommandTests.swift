import Foundation
import GraphStandIn
import Testing

/// The one mail rule (`MailingRule`) as each command that changes or deletes an event applies it, through
/// the built binary against the stand-in: an event the user organises, or whose `isOrganizer` Graph did not
/// send, with an attendee is refused without `--as-meeting --yes` (nothing changed, nobody mailed); an
/// attendee's copy of someone else's meeting, and any event without attendees, goes ahead and mails nobody.
@Suite struct MailingRuleCommandTests {
    enum Organizer: String, CaseIterable, Sendable {
        /// The user organises it.
        case me
        /// Someone else does; this is the user's copy.
        case other
        /// Graph's answer carries no `isOrganizer` (the stand-in's `omitsIsOrganizer`).
        case missing
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var command: String
        var organizer: Organizer
        var attendees: Int
        var mails: Bool { attendees > 0 && organizer != .other }
        var testDescription: String { "\(command), organizer \(organizer.rawValue), \(attendees) attendee(s)" }
    }

    static let rows: [Row] = ["delete", "edit"].flatMap { command in
        Organizer.allCases.flatMap { organizer in
            [0, 1].map { Row(command: command, organizer: organizer, attendees: $0) }
        }
    }

    @Test("delete and edit follow the one mail rule", arguments: rows)
    func commandsFollowTheRule(_ row: Row) throws {
        let account = try EventActionCommandTests.account()
        let standIn = account.standIn
        let attendees = Array(["bo@contoso.example"].prefix(row.attendees))
        let id = try EventActionCommandTests.seed(
            standIn, subject: "Review", attendees: attendees,
            organizer: row.organizer == .other ? EventActionCommandTests.ann : nil)
        standIn.omitsIsOrganizer = row.organizer == .missing
        let arguments = row.command == "delete" ? ["delete", id] : ["edit", id, "--subject", "Review (moved room)"]
        let result = try account.run(arguments, environment: account.tokenEnvironment())
        standIn.omitsIsOrganizer = false
        if row.mails {
            #expect(result.status == 1, "\(result.out) \(result.err)")
            #expect(result.err.contains("--as-meeting --yes"), "\(result.err)")
            #expect(standIn.event(id: id)?["subject"] as? String == "Review", "nothing changed")
        } else {
            #expect(result.status == 0, "\(result.out) \(result.err)")
            if row.command == "delete" {
                #expect(standIn.event(id: id) == nil)
            } else {
                #expect(standIn.event(id: id)?["subject"] as? String == "Review (moved room)")
            }
        }
        #expect(standIn.sentCancellations.isEmpty && standIn.sentUpdates.isEmpty, "nobody is mailed")
    }

    @Test("delete --search --yes keeps a meeting whose isOrganizer Graph did not send, and mails nobody")
    func deleteSearchWithoutIsOrganizer() throws {
        let account = try EventActionCommandTests.account()
        let standIn = account.standIn
        let meeting = try EventActionCommandTests.seed(
            standIn, subject: "Dentist review", attendees: [EventActionCommandTests.ann])
        let own = try EventActionCommandTests.seed(standIn, subject: "Dentist", day: 2)
        standIn.omitsIsOrganizer = true
        let result = try account.run(
            ["delete", "--search", "dentist", "--from", "2026-12-01", "--to", "+7d", "--yes"],
            environment: account.tokenEnvironment())
        #expect(result.status == 1, "\(result.out) \(result.err)")
        #expect(standIn.event(id: meeting) != nil && standIn.event(id: own) == nil)
        #expect(standIn.sentCancellations.isEmpty)
    }
}
