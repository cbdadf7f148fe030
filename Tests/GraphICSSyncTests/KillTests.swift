import Foundation
import GraphICSMirror
import GraphICSSync
import TestSupport
import Testing

/// A process killed with SIGKILL at an arbitrary instant while it writes items and records state: what it
/// leaves must be whole. Each test runs the writer in a child process (an exit test) that a thread of its
/// own kills after `delay` milliseconds.
@Suite struct KillTests {
    static let delays = [5, 60, 150, 300, 600, 1000]

    /// The text of version `round` of item `index`: long enough that a torn write would show.
    static func version(_ index: Int, round: Int) -> String {
        "BEGIN:VCALENDAR\r\nUID:item-\(index)\r\nX-ROUND:\(round)\r\n"
            + String(repeating: "DESCRIPTION:padding\r\n", count: 200)
            + "END:VCALENDAR\r\n"
    }

    @Test("a kill during batch writes leaves every item whole, old or new", arguments: delays)
    func killedDuringBatchWrites(delay: Int) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path
        await #expect(processExitsWith: .signal(SIGKILL)) { [path = path as String, delay = delay as Int] in
            let folder = try VdirFolder(path: path)
            Thread {
                usleep(useconds_t(delay * 1000))
                kill(getpid(), SIGKILL)
            }.start()
            for round in 0..<10_000 {
                let batch = (0..<40).map {
                    (name: "item-\($0).ics", contents: Data(Self.version($0, round: round).utf8))
                }
                _ = try folder.write(batch: batch)
                if round % 2 == 0 {
                    try folder.write(Data(Self.version(99, round: round).utf8), to: "single.ics")
                }
            }
        }
        let folder = try VdirFolder(path: path)
        for entry in try folder.scan() {
            let text = String(decoding: try folder.read(entry.name).contents, as: UTF8.self)
            let index = entry.name == "single.ics" ? 99 : Int(entry.name.dropFirst(5).dropLast(4)) ?? -1
            let round = text.split(separator: "\r\n").first { $0.hasPrefix("X-ROUND:") }.flatMap {
                Int($0.dropFirst(8))
            }
            #expect(round != nil, "\(entry.name) has no round")
            #expect(text == Self.version(index, round: round ?? -1), "\(entry.name) is torn")
        }
        // What the kill left behind is only graph-ics's temporaries, which go.
        try folder.removeLeftoverTemporaries()
        #expect(try directory.names().allSatisfy { $0.hasSuffix(".ics") && !$0.hasPrefix(".") })
    }

    @Test("a kill during transactions leaves the state as of the last commit", arguments: delays)
    func killedDuringTransactions(delay: Int) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("state.sqlite3")
        await #expect(processExitsWith: .signal(SIGKILL)) { [path = path as String, delay = delay as Int] in
            let state = try SyncState(path: path)
            let pairing = try state.pairing(SyncPairingKey(account: "a", calendarID: "c", folder: path))
            Thread {
                usleep(useconds_t(delay * 1000))
                kill(getpid(), SIGKILL)
            }.start()
            // Each transaction records items 0...n and a delta link naming n: the two always agree.
            for round in 0..<1_000_000 {
                try state.transaction {
                    for index in stride(from: round % 5, to: 50, by: 5) {
                        try state.upsert(
                            SyncItemRecord(
                                fileName: "item-\(index).ics", uid: "item-\(index)", graphID: "g\(index)",
                                changeKey: "round-\(round)", size: Int64(round), modificationNanoseconds: 0,
                                sha256: Data(count: 32)),
                            in: pairing)
                    }
                    try state.saveDeltaCheckpoint(
                        DeltaCheckpoint(link: "round-\(round)", window: SyncWindow(start: 0, end: Int64(round))),
                        for: pairing)
                }
            }
        }
        let state = try SyncState(path: path)
        let pairing = try state.pairing(SyncPairingKey(account: "a", calendarID: "c", folder: path))
        let checkpoint = try state.deltaCheckpoint(of: pairing)
        let items = try state.items(of: pairing)
        guard let checkpoint else {
            #expect(items.isEmpty)
            return
        }
        let lastRound = checkpoint.window.end
        #expect(checkpoint.link == "round-\(lastRound)")
        // The items the last committed round wrote carry its change key; none carries a later one.
        let written = items.filter { Int($0.uid.dropFirst(5)).map { $0 % 5 == Int(lastRound % 5) } ?? false }
        #expect(!written.isEmpty)
        #expect(written.allSatisfy { $0.changeKey == "round-\(lastRound)" && $0.size == lastRound })
        #expect(items.allSatisfy { $0.size <= lastRound })
    }
}
