import Foundation
import TestSupport
import Testing

@testable import GraphICSSync

@Suite struct ConflictArchiveTests {
    @Test func aKeptVersionIsNamedByItemTimeAndSideInAPrivateFolder() throws {
        let directory = try TemporaryDirectory()
        var archive = ConflictArchive(stateDirectory: directory.path)
        archive.now = { Date(timeIntervalSince1970: 1_796_119_205) }  // 2026-12-01T10:00:05Z
        let path = try archive.keep(Data("BEGIN:VCALENDAR\r\n".utf8), of: "uid-lunch.ics", side: .local)
        #expect(path == directory.file("conflicts/uid-lunch.20261201T100005.local.ics"))
        #expect(FileManager.default.contents(atPath: path) == Data("BEGIN:VCALENDAR\r\n".utf8))
        var status = stat()
        #expect(stat(directory.file("conflicts"), &status) == 0 && status.st_mode & 0o777 == 0o700)
    }

    @Test func aSecondCopyInTheSameSecondDoesNotReplaceTheFirst() throws {
        let directory = try TemporaryDirectory()
        var archive = ConflictArchive(stateDirectory: directory.path)
        archive.now = { Date(timeIntervalSince1970: 1_796_119_205) }
        let first = try archive.keep(Data("one".utf8), of: "a.ics", side: .graph)
        let second = try archive.keep(Data("two".utf8), of: "a.ics", side: .graph)
        #expect(first.hasSuffix("/a.20261201T100005.graph.ics") && second.hasSuffix("/a.20261201T100005.graph-2.ics"))
        #expect(FileManager.default.contents(atPath: first) == Data("one".utf8))
        #expect(FileManager.default.contents(atPath: second) == Data("two".utf8))
    }
}

@Suite struct SyncOptionsTests {
    @Test func theWindowIsWholeUTCDaysAroundToday() {
        let now = Date(timeIntervalSince1970: 1_796_119_205)  // 2026-12-01T10:00:05Z
        let window = SyncOptions.window(past: 90, future: 365, now: now)
        #expect(window.start == 1_796_083_200 - 90 * 86_400)
        #expect(window.end == 1_796_083_200 + 366 * 86_400, "the whole of the last day")
        #expect(SyncOptions.window(past: 90, future: 365, now: now.addingTimeInterval(3600)) == window)
    }
}
