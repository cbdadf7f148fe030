import Foundation
import GraphICS
import GraphICSMirror
import ICalBridge
import Testing

@testable import GraphICSSync

/// A first pull SIGKILLed at an arbitrary instant (a child process, an exit test, against the stand-in the
/// test runs) and run again converges: every file recorded and whole, the same files a clean pull writes.
@Suite struct SyncPullKillTests {
    /// From before the first request to after the last commit (a pull of these 300 events takes about a
    /// second once the child is up).
    static let delays = [20, 900, 1300, 1600, 2000, 2500, 4000]

    @Test("a first pull killed at any instant converges when run again", arguments: delays)
    func killedFirstPullConverges(delay: Int) async throws {
        try await killedFirstPull(delay: delay, otherCalendar: false)
    }

    @Test("a first pull of another calendar killed at any instant converges", arguments: [20, 1300, 2500])
    func killedFirstPullOfAnotherCalendarConverges(delay: Int) async throws {
        try await killedFirstPull(delay: delay, otherCalendar: true)
    }

    private func killedFirstPull(delay: Int, otherCalendar: Bool) async throws {
        let fixture = try PullFixture()
        let calendarID = otherCalendar ? fixture.standIn.addCalendar(name: "Team") : ""
        let calendar: PullCalendar = otherCalendar ? .other(id: calendarID) : .primary
        try fixture.standIn.addEvents(
            count: 300, from: fixture.window.startDate, to: fixture.window.startDate.addingTimeInterval(25 * 86_400),
            calendar: otherCalendar ? calendarID : nil)
        try fixture.addSeries(calendar: otherCalendar ? calendarID : nil)
        let base = fixture.standIn.baseURL
        let token = fixture.standIn.issueAccessToken()
        let folder = fixture.folder.path
        let statePath = fixture.directory.file("state.sqlite3")
        let window = [fixture.window.start, fixture.window.end]
        await #expect(processExitsWith: .signal(SIGKILL)) {
            [
                base = base as String, token = token as String, folder = folder as String,
                statePath = statePath as String, window = window as [Int64], delay = delay as Int,
                calendarID = calendarID as String
            ] in
            Thread {
                usleep(useconds_t(delay * 1000))
                kill(getpid(), SIGKILL)
            }.start()
            let client = GraphClient(
                baseURL: try #require(URL(string: base)), transport: CurlTransport(defaultTimeout: .seconds(20)),
                tokens: StaticTokenSource(token: token))
            let state = try SyncState(path: statePath)
            let vdir = try VdirFolder(path: folder)
            let pairing = try state.pairing(
                SyncPairingKey(account: "ada@contoso.example", calendarID: "default", folder: vdir))
            var pull = SyncPull(
                client: client, state: state, pairing: pairing, folder: vdir,
                calendar: calendarID.isEmpty ? .primary : .other(id: calendarID))
            pull.batchSize = 10
            pull.pageSize = 25
            _ = try pull.run(window: SyncWindow(start: window[0], end: window[1]))
            while true { sleep(1) }  // finished before the kill came: that instant counts too
        }
        let pairing = try fixture.state.pairing(fixture.pairing.key)
        let rerun = SyncPull(
            client: fixture.client, state: fixture.state, pairing: pairing, folder: fixture.folder, calendar: calendar)
        let report = try rerun.run(window: fixture.window)
        #expect(report.keptLocalChanges.isEmpty)
        #expect(try fixture.folder.scan().count == 301)
        let records = try fixture.state.items(of: pairing)
        #expect(records.map(\.fileName) == (try fixture.folder.scan().map(\.name)))
        for record in records {
            let item = try fixture.folder.read(record.fileName)
            #expect(record.sha256 == item.sha256 && record.matches(item.entry), "\(record.fileName)")
        }
        // The same calendar pulled cleanly into a second folder gives the same files.
        try FileManager.default.createDirectory(
            atPath: fixture.directory.file("clean"), withIntermediateDirectories: false)
        let cleanFolder = try VdirFolder(path: fixture.directory.file("clean"))
        let cleanPairing = try fixture.state.pairing(
            SyncPairingKey(account: "ada@contoso.example", calendarID: "default", folder: cleanFolder))
        _ = try SyncPull(
            client: fixture.client, state: fixture.state, pairing: cleanPairing, folder: cleanFolder,
            calendar: calendar
        ).run(window: fixture.window)
        for entry in try cleanFolder.scan() {
            #expect(try cleanFolder.read(entry.name).sha256 == fixture.folder.read(entry.name).sha256, "\(entry.name)")
        }
        #expect(try cleanFolder.scan().map(\.name) == fixture.folder.scan().map(\.name))
        #expect(try VdirFolder(path: fixture.folder.path).removeLeftoverTemporaries() == 0)
    }
}
