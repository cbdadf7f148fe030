import Foundation
import GraphStandIn
import Testing

/// What the stand-in refuses as Graph does: ranged reads over 1825 days, and app-only calls the app
/// registration holds no application permission for.
@Suite struct GraphStandInReadLimitsTests {
    /// A query window from `start` lasting `days`.
    static func window(_ start: String, days: Int) -> String {
        let formatter = ISO8601DateFormatter()
        let from = formatter.date(from: start) ?? Date()
        let to = from.addingTimeInterval(Double(days) * 86_400)
        return "startDateTime=\(formatter.string(from: from))&endDateTime=\(formatter.string(from: to))"
    }

    @Test(arguments: ["/me/calendarView", "/me/calendars/{calendar}/calendarView", "/me/events/series-1/instances"])
    func aRangedReadOverEighteenHundredTwentyFiveDaysIsRefusedLikeGraph(path: String) throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        var master = StandInFixture.event("Series", "2026-12-01T08:00:00", "2026-12-01T09:00:00")
        master["type"] = "seriesMaster"
        master["id"] = "series-1"
        try fixture.standIn.addEvent(master)
        let calendar = try #require(fixture.standIn.defaultCalendarID())
        let target = path.replacingOccurrences(of: "{calendar}", with: calendar)

        let fiveYears = try fixture.call("GET", target + "?" + Self.window("2024-01-01T00:00:00Z", days: 1825))
        #expect(fiveYears.status == 200)
        // 2019-11-12 to 2024-11-12 is 1827 days: the span Graph refused in microsoft-graph-docs-contrib#6321.
        let refused = try fixture.call(
            "GET", target + "?startDateTime=2019-11-12T08:49:06Z&endDateTime=2024-11-12T08:49:06Z")
        #expect(refused.status == 400)
        #expect(refused.errorCode == "ErrorInvalidRequest")
        let message = (refused.json["error"] as? [String: Any])?["message"] as? String
        #expect(message?.hasSuffix("greater than the allowed range. Maximum number of days: 1825") == true)
        let oneSecondMore = try fixture.call(
            "GET", target + "?startDateTime=2024-01-01T00:00:00Z&endDateTime=2028-12-30T00:00:01Z")
        #expect(oneSecondMore.status == 400)
    }

    /// Client credentials for an app registration granted exactly `roles`.
    static func appToken(_ fixture: StandInFixture, roles: [String]) throws -> String {
        fixture.standIn.registerApp(clientID: "daemon", secret: "s3cret", roles: roles)
        let granted = try fixture.form(
            "/contoso.example/oauth2/v2.0/token",
            [
                "grant_type": "client_credentials", "client_id": "daemon", "client_secret": "s3cret",
                "scope": "https://graph.microsoft.com/.default",
            ])
        return try #require(granted.json["access_token"] as? String)
    }

    @Test func anAppRegistrationWithOnlyCalendarsReadWriteMayReadCalendarsButNotMailboxSettingsOrTheUser() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let token = try Self.appToken(fixture, roles: ["Calendars.ReadWrite"])
        let mailbox = "/users/adele@contoso.example"
        let week = "?startDateTime=2026-11-30T00:00:00Z&endDateTime=2026-12-07T00:00:00Z"
        #expect(try fixture.call("GET", mailbox + "/calendarView" + week, token: token).status == 200)
        #expect(try fixture.call("GET", mailbox + "/calendars", token: token).status == 200)

        let settings = try fixture.call("GET", mailbox + "/mailboxSettings", token: token)
        #expect(settings.status == 403)
        #expect(settings.errorCode == "ErrorAccessDenied")
        let user = try fixture.call("GET", mailbox, token: token)
        #expect(user.status == 403)
        #expect(user.errorCode == "Authorization_RequestDenied")
    }

    @Test func theApplicationPermissionsAGrantNamesAreExactlyWhatItsTokensMayDo() throws {
        let fixture = try StandInFixture()
        defer { fixture.standIn.stop() }
        let mailbox = "/users/adele@contoso.example"
        let token = try Self.appToken(fixture, roles: ["MailboxSettings.Read", "User.Read.All"])
        #expect(try fixture.call("GET", mailbox + "/mailboxSettings", token: token).status == 200)
        #expect(try fixture.call("GET", mailbox, token: token).status == 200)
        // No calendar permission was granted: calendars are refused.
        #expect(try fixture.call("GET", mailbox + "/calendars", token: token).status == 403)

        let issued = fixture.standIn.issueAppToken(roles: ["Calendars.Read"])
        #expect(try fixture.call("GET", mailbox + "/calendars", token: issued).status == 200)
        #expect(try fixture.call("GET", mailbox + "/mailboxSettings", token: issued).status == 403)
    }
}
