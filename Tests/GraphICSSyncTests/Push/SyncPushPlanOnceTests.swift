import Foundation
import GraphICS
import Testing

@testable import GraphICSSync

/// A run plans its push twice (before the pull, and after it from the folder and the records as the pull
/// left them): a changed file is read, hashed and mapped once, and a create needs no second request.
@Suite struct SyncPushPlanOnceTests {
    /// Rewrites the item `name` in place (same inode) with `text` of the same length, its modification time put
    /// back: a stat cannot tell it from the file an earlier plan read.
    static func rewriteUnseen(_ fixture: PushFixture, _ name: String, _ lines: [String]) throws {
        let path = fixture.folder.path + "/" + name
        let before = try #require(try fixture.folder.entry(name))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: Data((lines.joined(separator: "\r\n") + "\r\n").utf8))
        try handle.close()
        let seconds = before.modificationNanoseconds / 1_000_000_000
        var times = [
            timespec(tv_sec: Int(seconds), tv_nsec: Int(before.modificationNanoseconds % 1_000_000_000)),
            timespec(tv_sec: Int(seconds), tv_nsec: Int(before.modificationNanoseconds % 1_000_000_000)),
        ]
        _ = utimensat(AT_FDCWD, path, &times, 0)
        #expect(try fixture.folder.entry(name) == before, "the stat is the one the first plan read")
    }

    @Test func aSecondPlanTakesAnUnchangedFileFromTheFirstAndReadsAChangedOne() throws {
        let fixture = try PushFixture()
        try fixture.write("dentist.ics", PushFixture.single("dentist", summary: "Dentist"))
        try fixture.write("lunch.ics", PushFixture.single("lunch", summary: "Lunch"))
        let push = fixture.push()
        let first = try push.plan()
        #expect(first.actions.map(\.subject) == ["Dentist", "Lunch"])

        try Self.rewriteUnseen(fixture, "dentist.ics", PushFixture.single("dentist", summary: "Dentixt"))
        try fixture.write("lunch.ics", PushFixture.single("lunch", summary: "Lunch moved"))
        let second = try push.plan(reusing: first)
        #expect(
            second.actions.map(\.subject) == ["Dentist", "Lunch moved"],
            "the file whose stat is unchanged is the first plan's; the one written since is read again")
        #expect(second.actions.first?.file == first.actions.first?.file)
        #expect(try push.plan().actions.map(\.subject) == ["Dentixt", "Lunch moved"], "without one, all read")
    }

    @Test func aFileTheFirstPlanFoundUnreadableIsReportedFromItAgain() throws {
        let fixture = try PushFixture()
        try fixture.write(
            "broken.ics", PushFixture.calendar(["UID:broken-1", "DTSTAMP:20261120T100000Z", "SUMMARY:No start"]))
        let push = fixture.push()
        let first = try push.plan()
        let second = try push.plan(reusing: first)
        #expect(second.problems.map(\.outcome.name) == ["failed"] && second.problems.first?.uid == "broken-1")
        #expect(second.diagnostics.count == first.diagnostics.count && !second.diagnostics.isEmpty)
    }

    @Test func aCreatedEventIsRecordedWithTheChangeKeyOfGraphsAnswer() throws {
        let fixture = try PushFixture()
        try fixture.write("dentist.ics", PushFixture.single("dentist", summary: "Dentist"))
        let report = try fixture.sync()
        #expect(report.items.map(\.outcome) == [.pushed(.new)])
        let id = try #require(report.items.first?.graphID)
        #expect(fixture.operations("GET", "/events/" + id).isEmpty, "the event is not read after creating it")
        let record = try #require(try fixture.record("dentist.ics"))
        #expect(record.changeKey != nil && record.changeKey == fixture.events.first?["changeKey"] as? String)
        #expect(try fixture.push().plan().actions.isEmpty)
    }
}
