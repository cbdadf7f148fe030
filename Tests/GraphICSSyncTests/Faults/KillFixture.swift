import Foundation
import GraphICS
import GraphICSMirror
import Testing

@testable import GraphICSSync

/// What a kill test's child needs to reach the parent's stand-in and state: plain values, since an exit
/// test's closure captures only what it can encode.
struct KillTarget: Codable, Sendable {
    var baseURL: String
    var token: String
    var folder: String
    var statePath: String
    var window: [Int64]
    var marker: String

    init(_ fixture: PullFixture) {
        baseURL = fixture.standIn.baseURL
        token = fixture.standIn.issueAccessToken()
        folder = fixture.folder.path
        statePath = fixture.directory.file("state.sqlite3")
        window = [fixture.window.start, fixture.window.end]
        marker = fixture.directory.file("kill-marker")
    }

    /// The pull the child runs: the parent's stand-in through `transport`, the parent's folder and state,
    /// pages of 25 and batches of 10 (so that a run has many points to stop at).
    func pull(transport: any HTTPTransport = CurlTransport(defaultTimeout: .seconds(20))) throws -> SyncPull {
        guard let base = URL(string: baseURL) else { throw CocoaError(.fileReadInvalidFileName) }
        let client = GraphClient(
            baseURL: base, transport: transport, tokens: StaticTokenSource(token: token),
            retry: RetryPolicy(maxAttempts: 8, baseDelay: .milliseconds(20), maxDelay: .milliseconds(200)))
        let state = try SyncState(path: statePath)
        let vdir = try VdirFolder(path: folder)
        let pairing = try state.pairing(
            SyncPairingKey(account: "ada@contoso.example", calendarID: "default", folder: vdir))
        var pull = SyncPull(client: client, state: state, pairing: pairing, folder: vdir)
        pull.batchSize = 10
        pull.pageSize = 25
        return pull
    }

    /// The whole sync the child runs (`graph-ics sync` as the command runs it), over the same client,
    /// folder and state as `pull`; the lock and the conflicts folder beside the state.
    func syncRun(after pull: SyncPull) -> SyncRun {
        SyncRun(
            client: pull.client, state: pull.state, pairing: pull.pairing, folder: pull.folder,
            stateDirectory: (statePath as NSString).deletingLastPathComponent, options: SyncOptions(window: syncWindow))
    }

    var syncWindow: SyncWindow { SyncWindow(start: window[0], end: window[1]) }

    /// Runs the sync with the switch armed at `point` (in the child) and kills the process at the end if
    /// the point never came.
    /// With `both`, the run is the engine's (``SyncRun``: both plans, then the pull's and the push's
    /// writes); otherwise the pull alone, with its recording hook.
    func runKilled(at point: KillPoint, both: Bool = false) throws -> Never {
        KillSwitch.arm(point, marker: marker)
        var pull = try pull(transport: KillingTransport(inner: CurlTransport(defaultTimeout: .seconds(20))))
        KillSwitch.watch(pull.state)
        if both {
            _ = try syncRun(after: pull).run()
        } else {
            pull.beforeRecording = { KillSwitch.reached(.beforeRecording) }
            _ = try pull.run(window: syncWindow)
        }
        KillSwitch.finished()
        kill(getpid(), SIGKILL)
        while true { pause() }
    }

    /// What the child wrote to the marker: `reached <step>`, or `finished <counts>` when the point never came.
    var markerText: String {
        (try? String(contentsOfFile: marker, encoding: .utf8)) ?? "no marker (the child died before the point)"
    }
}

extension PullFixture {
    /// 300 single events over the first 25 days of the window and the weekly series "Standup".
    func seedCalendar() throws {
        try standIn.addEvents(count: 300, from: window.startDate, to: window.startDate.addingTimeInterval(25 * 86_400))
        try addSeries()
    }

    /// Changes "in Outlook" between two syncs: 20 events moved and renamed, 10 removed, 20 added, one
    /// occurrence of the series changed.
    func changeCalendarInOutlook() throws {
        let ids = standIn.events().filter { ($0["subject"] as? String)?.hasPrefix("Event ") ?? false }
            .compactMap { $0["id"] as? String }.sorted()
        for id in ids.prefix(20) {
            try standIn.changeEvent(id: id, ["subject": "Moved \(id)"])
        }
        for id in ids.dropFirst(20).prefix(10) {
            try standIn.removeEvent(id: id)
        }
        for index in 0..<20 {
            try addSingle("Added \(index)", day: 1 + index, id: "added-\(index)")
        }
        try standIn.changeEvent(id: "standup-14", ["subject": "Standup (moved room)"])
    }

    /// Checks that the folder and the state agree and equal what a clean pull of the same calendar writes
    /// into a second folder: every record's file present with the recorded hash, no file without a record,
    /// the same names and bytes, no temporary left.
    func expectMatchesCleanPull(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let records = try state.items(of: state.pairing(pairing.key))
        #expect(records.map(\.fileName) == (try folder.scan().map(\.name)), sourceLocation: sourceLocation)
        for record in records {
            let item = try folder.read(record.fileName)
            #expect(record.sha256 == item.sha256, "\(record.fileName)", sourceLocation: sourceLocation)
        }
        let cleanPath = directory.file("clean")
        try FileManager.default.createDirectory(atPath: cleanPath, withIntermediateDirectories: false)
        let cleanFolder = try VdirFolder(path: cleanPath)
        let cleanState = try SyncState(path: directory.file("clean.sqlite3"))
        let cleanPairing = try cleanState.pairing(
            SyncPairingKey(account: "ada@contoso.example", calendarID: "default", folder: cleanFolder))
        _ = try SyncPull(client: client, state: cleanState, pairing: cleanPairing, folder: cleanFolder).run(
            window: window)
        #expect(try cleanFolder.scan().map(\.name) == folder.scan().map(\.name), sourceLocation: sourceLocation)
        for entry in try cleanFolder.scan() where try folder.entry(entry.name) != nil {
            #expect(
                try cleanFolder.read(entry.name).contents == folder.read(entry.name).contents, "\(entry.name)",
                sourceLocation: sourceLocation)
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { $0.hasSuffix(".ics") },
            "a temporary or other file was left in the folder", sourceLocation: sourceLocation)
    }
}
