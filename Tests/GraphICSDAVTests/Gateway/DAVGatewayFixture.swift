import Foundation
import GraphICS
import GraphICSServe
import GraphStandIn
import TestSupport

@testable import GraphICSDAV

/// The stand-in with Ada's mailbox (UTC), one CalDAV login `ada` (password `secret`) for it, and a gateway
/// answering requests in process, refreshing its calendars at every request (`--refresh 0`).
final class DAVGatewayFixture {
    let standIn: GraphStandIn
    let client: GraphClient
    let directory: TemporaryDirectory
    let gateway: DAVGateway
    let login: DAVLogin
    /// Today, 00:00 UTC: events are placed around it, inside the login's window.
    let today: Int64

    init(invitations: DAVInvitations = .refuse, readOnly: Bool = false, refreshInterval: Int = 0) throws {
        standIn = try GraphStandIn()
        standIn.addUser(displayName: "Ada Lovelace", mail: "ada@contoso.example", mailboxTimeZone: "UTC")
        guard let base = URL(string: standIn.baseURL) else { throw CocoaError(.fileReadInvalidFileName) }
        let client = GraphClient(
            baseURL: base, transport: CurlTransport(defaultTimeout: .seconds(20)),
            tokens: StaticTokenSource(token: standIn.issueAccessToken()),
            retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50)))
        self.client = client
        directory = try TemporaryDirectory()
        let seconds = Int64(Date().timeIntervalSince1970)
        today = seconds - seconds % 86_400
        let store = DAVLoginStore(path: directory.path + "/config/dav.json")
        login = DAVLogin(
            user: "ada", account: "work", mailbox: "ada@contoso.example", calendars: nil, readOnly: readOnly,
            invitations: invitations, pastDays: 30, futureDays: 60, passwordHash: DAVPassword.hash("secret"),
            created: Date())
        try store.save([login])
        let accounts = DAVAccounts(
            stateDirectory: directory.path + "/state",
            log: { line in if ProcessInfo.processInfo.environment["DAV_TEST_LOG"] != nil { print("LOG", line) } }
        ) { _ in
            DAVAccounts.Session(client: client, mailbox: "ada@contoso.example", zone: nil)
        }
        gateway = DAVGateway(
            authenticator: DAVAuthenticator(store: store), accounts: accounts, refreshInterval: refreshInterval,
            log: { line in if ProcessInfo.processInfo.environment["DAV_TEST_LOG"] != nil { print("LOG", line) } })
    }

    deinit {
        standIn.stop()
    }

    static let authorization = "Basic " + Data("ada:secret".utf8).base64EncodedString()

    /// One request through the gateway, as `ada`.
    func request(
        _ method: String, _ path: String, body: String = "", headers: [(name: String, value: String)] = [],
        authorized: Bool = true
    ) -> HTTPServerResponse {
        var all = headers
        if authorized { all.append(("Authorization", Self.authorization)) }
        return gateway.respond(
            to: HTTPServerRequest(
                method: method, path: path, headers: all, remoteAddress: "127.0.0.1:40000", body: Data(body.utf8)))
    }

    /// The default calendar's collection path.
    var calendarPath: String {
        let id = standIn.defaultCalendarID() ?? ""
        return "/dav/ada/" + DAVCalendarInfo(id: id, name: "", color: nil, canEdit: true, isDefault: true).key + "/"
    }

    /// `day` days after today at `hour`:`minute` UTC, as Graph's dateTimeTimeZone.
    func when(_ day: Int, _ hour: Int, _ minute: Int = 0) -> [String: Any] {
        ["dateTime": localTime(day, hour, minute), "timeZone": "UTC"]
    }

    /// `2026-12-07T09:00:00`: `day` days after today at `hour`:`minute` UTC.
    func localTime(_ day: Int, _ hour: Int, _ minute: Int = 0) -> String {
        let instant = Date(
            timeIntervalSince1970: TimeInterval(today + Int64(day) * 86_400 + Int64(hour * 3600 + minute * 60)))
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return String(formatter.string(from: instant).prefix(19))
    }

    /// The UTC form CalDAV writes (`20261207T090000Z`) of `day` days after today at `hour`.
    func stamp(_ day: Int, _ hour: Int = 0) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(
            from: Date(timeIntervalSince1970: TimeInterval(today + Int64(day) * 86_400 + Int64(hour) * 3600)))
    }

    @discardableResult
    func addSingle(_ subject: String, day: Int, id: String, extra: [String: Any] = [:]) throws -> String {
        var event: [String: Any] = [
            "id": id, "subject": subject, "iCalUId": "uid-\(id)", "start": when(day, 10), "end": when(day, 11),
        ]
        event.merge(extra) { _, new in new }
        return try standIn.addEvent(event)
    }

    /// A weekly series of four occurrences from `day` (09:00–09:30 UTC), its second moved a day later and
    /// its third cancelled: master `weekly`.
    func addSeries(day: Int) throws {
        let recurrence: [String: Any] = [
            "pattern": [
                "type": "weekly", "interval": 1, "daysOfWeek": [Self.weekday(today + Int64(day) * 86_400)],
                "firstDayOfWeek": "sunday",
            ],
            "range": [
                "type": "numbered", "startDate": String(localTime(day, 0).prefix(10)),
                "numberOfOccurrences": 4, "recurrenceTimeZone": "UTC",
            ],
        ]
        try standIn.addEvent([
            "id": "weekly", "type": "seriesMaster", "subject": "Weekly", "iCalUId": "uid-weekly",
            "start": when(day, 9), "end": when(day, 9, 30), "recurrence": recurrence,
            "originalStartTimeZone": "UTC", "originalEndTimeZone": "UTC",
        ])
        for week in 0..<4 {
            let start = day + week * 7
            try standIn.addEvent([
                "id": "weekly-\(week)", "type": "occurrence", "seriesMasterId": "weekly", "subject": "Weekly",
                "iCalUId": "uid-weekly", "originalStart": localTime(start, 9) + "Z",
                "start": when(start, 9), "end": when(start, 9, 30),
            ])
        }
        try standIn.changeEvent(
            id: "weekly-1", ["subject": "Weekly (moved)", "start": when(day + 8, 9), "end": when(day + 8, 9, 30)])
        try standIn.removeEvent(id: "weekly-2")
    }

    static func weekday(_ seconds: Int64) -> String {
        ["thursday", "friday", "saturday", "sunday", "monday", "tuesday", "wednesday"][Int((seconds / 86_400) % 7)]
    }

    /// The Graph writes the stand-in saw (POST, PATCH, DELETE) after the first `count` operations.
    func writes(after count: Int) -> [GraphStandIn.RecordedRequest] {
        standIn.operations.dropFirst(count).filter { $0.method != "GET" }
    }

    static func text(_ response: HTTPServerResponse) -> String {
        String(decoding: response.body.data, as: UTF8.self)
    }

    /// The hrefs of a multistatus answer, in order.
    static func hrefs(_ response: HTTPServerResponse) -> [String] {
        let text = text(response)
        return text.matches(of: /<D:href>([^<]*)<\/D:href>/).map { String($0.1) }
    }
}
