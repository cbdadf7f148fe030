import Foundation
import GraphICS
import GraphICSMirror
import GraphStandIn
import TestSupport

@testable import GraphICSSync
@testable import ICalBridge

/// The stand-in with one user (mailbox in UTC), a client for it, a fresh folder and state, and December
/// 2026 as the window a pull is asked for.
final class PullFixture {
    let standIn: GraphStandIn
    let client: GraphClient
    let directory: TemporaryDirectory
    let folder: VdirFolder
    let state: SyncState
    let pairing: SyncPairing
    /// 2026-12-01T00:00:00Z to 2027-01-01T00:00:00Z.
    let window = SyncWindow(start: 1_796_083_200, end: 1_796_083_200 + 31 * 86_400)

    init() throws {
        standIn = try GraphStandIn()
        standIn.addUser(displayName: "Ada Lovelace", mail: "ada@contoso.example", mailboxTimeZone: "UTC")
        guard let base = URL(string: standIn.baseURL) else { throw CocoaError(.fileReadInvalidFileName) }
        client = GraphClient(
            baseURL: base, transport: CurlTransport(defaultTimeout: .seconds(20)),
            tokens: StaticTokenSource(token: standIn.issueAccessToken()),
            retry: RetryPolicy(maxAttempts: 8, baseDelay: .milliseconds(20), maxDelay: .milliseconds(200)))
        directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("calendar"), withIntermediateDirectories: false)
        folder = try VdirFolder(path: directory.file("calendar"))
        state = try SyncState(path: directory.file("state.sqlite3"))
        pairing = try state.pairing(
            SyncPairingKey(account: "ada@contoso.example", calendarID: "default", folder: folder))
    }

    deinit {
        standIn.stop()
    }

    func pull(_ calendar: PullCalendar = .primary) -> SyncPull {
        SyncPull(client: client, state: state, pairing: pairing, folder: folder, calendar: calendar)
    }

    @discardableResult
    func run(_ calendar: PullCalendar = .primary) throws -> PullReport {
        try pull(calendar).run(window: window)
    }

    /// A single event on `day` of December 2026, 10:00–11:00 UTC.
    @discardableResult
    func addSingle(_ subject: String, day: Int, id: String, calendar: String? = nil) throws -> String {
        let date = String(format: "2026-12-%02d", day)
        return try standIn.addEvent(
            [
                "id": id, "subject": subject, "iCalUId": "uid-\(id)",
                "start": ["dateTime": "\(date)T10:00:00", "timeZone": "UTC"],
                "end": ["dateTime": "\(date)T11:00:00", "timeZone": "UTC"],
            ], calendar: calendar)
    }

    /// A weekly series "Standup" on the Mondays 7, 14, 21 and 28 December 2026, 09:00–09:30 UTC: master
    /// `standup`, occurrences `standup-7` … `standup-28`. Without `recurrence` the master has no pattern
    /// (the export then writes the occurrences as instances), and each occurrence gets an iCalUId of its own.
    func addSeries(calendar: String? = nil, recurrence: Bool = true) throws {
        func when(_ day: Int, _ time: String) -> [String: Any] {
            ["dateTime": String(format: "2026-12-%02dT%@", day, time), "timeZone": "UTC"]
        }
        var master: [String: Any] = [
            "id": "standup", "type": "seriesMaster", "subject": "Standup", "iCalUId": "uid-standup",
            "start": when(7, "09:00:00"), "end": when(7, "09:30:00"),
            "originalStartTimeZone": "UTC", "originalEndTimeZone": "UTC",
        ]
        if recurrence {
            master["recurrence"] =
                [
                    "pattern": ["type": "weekly", "interval": 1, "daysOfWeek": ["monday"], "firstDayOfWeek": "sunday"],
                    "range": [
                        "type": "numbered", "startDate": "2026-12-07", "numberOfOccurrences": 4,
                        "recurrenceTimeZone": "UTC",
                    ],
                ] as [String: Any]
        }
        try standIn.addEvent(master, calendar: calendar)
        for day in [7, 14, 21, 28] {
            try standIn.addEvent(
                [
                    "id": "standup-\(day)", "type": "occurrence", "seriesMasterId": "standup", "subject": "Standup",
                    "iCalUId": recurrence ? "uid-standup" : "uid-standup-\(day)",
                    "originalStart": String(format: "2026-12-%02dT09:00:00Z", day),
                    "start": when(day, "09:00:00"), "end": when(day, "09:30:00"),
                ], calendar: calendar)
        }
    }

    /// The text of the item file `name`.
    func text(_ name: String) throws -> String {
        String(decoding: try folder.read(name).contents, as: UTF8.self)
    }

    /// The VEVENTs of the item file `name` as the import's iCalendar reader (libical) sees them: UID and
    /// whether each is a RECURRENCE-ID override. Throws when the file is not one readable VCALENDAR.
    func parsedEvents(_ name: String) throws -> [(uid: String, isOverride: Bool)] {
        let document = try ICSDocument(try folder.read(name).contents, file: name)
        guard document.diagnostics.isEmpty else { throw ICalBridgeError(.badInput, "\(document.diagnostics)") }
        return document.withEvents { $0.map { ($0.uid, $0.isOverride) } }
    }

    /// Every item file's modification time, by name.
    func modificationTimes() throws -> [String: Int64] {
        Dictionary(uniqueKeysWithValues: try folder.scan().map { ($0.name, $0.modificationNanoseconds) })
    }

    /// Requests the stand-in has served so far (every path).
    var requestCount: Int { standIn.operations.count }
}
