import Foundation
import GraphICS
import Testing

@Suite struct MailingRuleTests {
    struct Row: Sendable {
        var change: MailingRule.Change
        var attendees: Int
        var isOrganizer: Bool?
        var mails: Bool
    }

    static let reminder = MailingRule.Change.patch(["isReminderOn", "reminderMinutesBeforeStart"])
    static let subject = MailingRule.Change.patch(["subject", "singleValueExtendedProperties"])

    static let rows: [Row] = [
        Row(change: .update, attendees: 2, isOrganizer: true, mails: true),
        Row(change: .update, attendees: 2, isOrganizer: nil, mails: true),
        Row(change: .update, attendees: 2, isOrganizer: false, mails: false),
        Row(change: .update, attendees: 0, isOrganizer: true, mails: false),
        Row(change: .delete, attendees: 1, isOrganizer: true, mails: true),
        Row(change: .delete, attendees: 1, isOrganizer: nil, mails: true),
        Row(change: .delete, attendees: 1, isOrganizer: false, mails: false),
        Row(change: .delete, attendees: 0, isOrganizer: nil, mails: false),
        Row(change: subject, attendees: 1, isOrganizer: true, mails: true),
        Row(change: reminder, attendees: 1, isOrganizer: true, mails: false),
        Row(change: reminder, attendees: 1, isOrganizer: nil, mails: false),
        Row(change: .patch(["singleValueExtendedProperties"]), attendees: 3, isOrganizer: true, mails: false),
    ]

    @Test("a change mails the attendees unless the user is not the organizer, there are none, or it is the reminder")
    func rule() {
        for row in Self.rows {
            #expect(
                MailingRule.mails(row.change, attendees: row.attendees, isOrganizer: row.isOrganizer) == row.mails,
                "\(row)")
        }
    }

    @Test("a standing read without isOrganizer counts as organising")
    func missingIsOrganizer() throws {
        let json = #"{"id":"e1","subject":"Review","attendees":[{"emailAddress":{"address":"bo@contoso.example"}}]}"#
        let standing = try #require(EventStanding(json: Data(json.utf8)))
        #expect(standing.isOrganizer == nil)
        #expect(MailingRule.mails(.delete, standing))
    }
}
