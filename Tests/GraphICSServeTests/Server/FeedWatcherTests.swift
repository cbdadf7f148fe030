import Foundation
import TestSupport
import Testing

@testable import GraphICSServe

/// ``FeedWatcher``: a change to feeds.json is noticed within the polling interval, SIGHUP's reload runs at
/// once, and nothing runs while the file stays as it was.
@Suite struct FeedWatcherTests {
    let directory: URL
    let store: FeedStore

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "graph-ics-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = FeedStore(directory: directory)
        try store.update { $0.feeds.append(FeedDefinition(name: "work")) }
    }

    static func wait(for count: Int, in calls: Locked<Int>, timeout: Double = 5) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if calls.value >= count { return true }
            usleep(10_000)
        }
        return false
    }

    @Test func aChangedFileIsReloadedAndAnUnchangedOneIsNot() throws {
        let calls = Locked(0)
        let watcher = FeedWatcher(store: store, stamp: store.stamp(), interval: .milliseconds(50)) {
            calls.mutate { $0 += 1 }
        }
        defer { watcher.stop() }
        usleep(300_000)
        #expect(calls.value == 0, "nothing changed")
        try store.update { $0.feeds.append(FeedDefinition(name: "home")) }
        #expect(Self.wait(for: 1, in: calls))
        usleep(300_000)
        #expect(calls.value == 1, "one change, one reload")
    }

    @Test func reloadNowRunsAtOnceWithoutAChange() throws {
        let calls = Locked(0)
        let watcher = FeedWatcher(store: store, stamp: store.stamp(), interval: .seconds(60)) {
            calls.mutate { $0 += 1 }
        }
        defer { watcher.stop() }
        watcher.reloadNow()
        #expect(Self.wait(for: 1, in: calls, timeout: 2))
    }
}
