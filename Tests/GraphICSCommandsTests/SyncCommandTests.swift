import Foundation
import GraphICSSync
import Testing

@testable import GraphICSCommands

/// `graph-ics sync`'s options and its conflict question, in-process.
@Suite struct SyncCommandParsingTests {
    @Test func theDefaultsAreTheDefaultCalendarNinetyDaysBackAYearAheadAndAsk() throws {
        let command = try SyncCommand.parse(["~/cal"])
        #expect(command.directory == "~/cal" && command.calendar == nil)
        #expect(command.past == 90 && command.future == 365)
        #expect(command.direction == .both && command.conflict == .ask)
        #expect(!command.allowMassDelete && !command.asMeeting && !command.dryRun && !command.reset)
    }

    @Test func theOptionsAreRead() throws {
        let command = try SyncCommand.parse([
            "dir", "--calendar", "Work", "--past", "0", "--future", "30", "--push-only", "--conflict", "local",
            "--allow-mass-delete", "--as-meeting", "--yes", "--dry-run", "--json", "-q",
        ])
        #expect(command.calendar == "Work" && command.past == 0 && command.future == 30)
        #expect(command.direction == .pushOnly && command.conflict == .local && command.allowMassDelete)
        #expect(command.asMeeting && command.dryRun && command.json && command.quiet)
    }

    @Test(arguments: [
        [], ["a", "b"], ["d", "--past", "-3"], ["d", "--future", "3651"], ["d", "--conflict", "mine"],
        ["d", "--pull-only", "--push-only"], ["d", "--as-meeting"], ["d", "--yes"],
    ])
    func mistakesAreUsageErrors(_ arguments: [String]) {
        #expect(throws: UsageError.self) { try SyncCommand.parse(arguments) }
    }
}

@Suite struct SyncConflictQuestionTests {
    let conflict = SyncConflict(
        fileName: "uid-lunch.ics", uid: "uid-lunch", subject: "Lunch", local: .changed, graph: .deleted)

    func answer(_ answers: [String?]) -> SyncReport.Resolution {
        var remaining = answers
        return SyncCommand.ask(conflict, Terminal()) { remaining.isEmpty ? nil : remaining.removeFirst() }
    }

    @Test func mineOutlooksAndSkipAreTheAnswers() {
        #expect(answer(["m"]) == .local)
        #expect(answer([" O "]) == .graph)
        #expect(answer(["s"]) == .skip)
    }

    @Test func anythingElseAsksAgainAndTheEndOfTheInputSkips() {
        #expect(answer(["maybe", "", "outlook"]) == .graph)
        #expect(answer(["?"]) == .skip)
        #expect(answer([nil]) == .skip)
    }
}
