import Foundation
import GraphICS
import ICalBridge
import Testing

@testable import GraphICSSync

/// A push SIGKILLed at an arbitrary instant (a child process, an exit test, against the stand-in the test
/// runs) and run again converges: one Graph event per file, every edit in Graph, nothing reported as a
/// conflict, every item recorded.
@Suite struct SyncPushKillTests {
    /// From before the first request to after the last commit (the creates come first, then the updates;
    /// the whole push takes about 1.2 s from the child's start).
    static let delays = [20, 400, 700, 900, 1000, 1100, 1200, 2500]

    @Test("a push killed at any instant converges when run again", arguments: delays)
    func killedPushConverges(delay: Int) async throws {
        let fixture = try PushFixture()
        for day in 1...10 {
            try fixture.base.addSingle("Pulled \(day)", day: day, id: "pulled-\(day)")
        }
        try fixture.base.run()
        for day in 1...10 {
            try fixture.edit("uid-pulled-\(day).ics", replacing: "SUMMARY:", with: "SUMMARY:Edited \(day)")
        }
        for index in 1...30 {
            try fixture.write(
                "new-\(index).ics", PushFixture.single("new-\(index)", summary: "New \(index)"))
        }
        let base = fixture.standIn.baseURL
        let token = fixture.standIn.issueAccessToken()
        let folder = fixture.folder.path
        let statePath = fixture.base.directory.file("state.sqlite3")
        await #expect(processExitsWith: .signal(SIGKILL)) {
            [
                base = base as String, token = token as String, folder = folder as String,
                statePath = statePath as String, delay = delay as Int
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
            let push = SyncPush(client: client, state: state, pairing: pairing, folder: vdir)
            _ = try push.apply(try push.plan())
            while true { sleep(1) }  // finished before the kill came: that instant counts too
        }
        let report = try fixture.sync()
        #expect(
            report.conflicts.isEmpty && report.items.allSatisfy { $0.outcome.name == "pushed" },
            "\(report.items.map(\.outcome))")
        let subjects = fixture.events.compactMap { $0["subject"] as? String }
        #expect(subjects.count == 40, "one event per file: \(subjects.sorted())")
        #expect(Set(subjects) == Set((1...10).map { "Edited \($0)" } + (1...30).map { "New \($0)" }))
        let records = try fixture.state.items(of: fixture.pairing)
        #expect(records.count == 40 && Set(records.compactMap(\.graphID)).count == 40)
        for record in records {
            let event = fixture.standIn.event(id: record.graphID ?? "")
            #expect(record.changeKey != nil && record.changeKey == event?["changeKey"] as? String, "\(record.fileName)")
        }
        #expect(try fixture.push().plan().actions.isEmpty)
    }
}
