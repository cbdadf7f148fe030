import Testing

@testable import GraphICSCommands

/// `delete`, `edit` and `respond` read in-process: what each takes and the usage errors of what it does not.
@Suite struct EventActionParsingTests {
    static func usageError(_ arguments: [String]) -> String? {
        guard case .usageError(let report) = Program.invocation(arguments) else { return nil }
        return report.message
    }

    @Test("delete takes ids, or --search with a range")
    func deleteTargets() throws {
        #expect(try DeleteCommand.parse(["A", "B"]).target == .ids(["A", "B"]))
        let search = try DeleteCommand.parse(["--search", "Dentist", "--from", "today", "--to", "+7d", "--yes"])
        #expect(search.target == .search("Dentist", .dates(from: "today", to: "+7d"), calendar: nil))
        #expect(search.yes && !search.asMeeting)
        #expect(try DeleteCommand.parse(["--search", "x"]).target == .search("x", .week("this"), calendar: nil))
    }

    @Test(
        "delete's usage errors",
        arguments: [
            (["delete"], "name the events to delete (their ids), or give --search TEXT"),
            (["delete", "A", "--search", "x"], "give event ids or --search, not both"),
            (
                ["delete", "A", "--week", "next"],
                "--week, --month, --from, --to, --days and --calendar go with --search"
            ),
            (["delete", "--search", ""], "--search needs a text to look for in subjects"),
            (
                ["delete", "--search", "x", "--from", "soon", "--to", "+1d"],
                "--from 'soon' is not a day: give \(TypedTime.dayForms)"
            ),
        ])
    func deleteMistakes(arguments: [String], message: String) {
        #expect(Self.usageError(arguments) == message)
    }

    @Test("edit reads the changes it is given and nothing else")
    func editChanges() throws {
        let edit = try EditCommand.parse(["ID", "--start", "tomorrow 10:00", "--duration", "1h30m", "--location", ""])
        #expect(edit.id == "ID" && edit.start == "tomorrow 10:00" && edit.duration == 5400 && edit.location == "")
        #expect(edit.subject == nil && edit.end == nil && edit.body == nil)
    }

    @Test(
        "edit's usage errors",
        arguments: [
            (["edit", "ID"], "say what to change: --subject, --start, --end, --duration, --location or --body"),
            (["edit", "--subject", "X"], "name the event to change (its id)"),
            (["edit", "A", "B", "--subject", "X"], "edit changes one event at a time"),
            (["edit", "ID", "--end", "11:00", "--duration", "1h"], "give --end or --duration, not both"),
            (
                ["edit", "ID", "--duration", "long"],
                "--duration 'long' is not a length: give \(TypedTime.durationForms)"
            ),
            (["edit", "ID", "--start", "25:00"], "--start '25:00' is not a time: give \(TypedTime.momentForms)"),
        ])
    func editMistakes(arguments: [String], message: String) {
        #expect(Self.usageError(arguments) == message)
    }

    @Test("respond reads the id, the answer and --no-mail")
    func respond() throws {
        let command = try RespondCommand.parse(["ID", "Tentative", "--no-mail", "--comment", "Maybe"])
        #expect(command.id == "ID" && command.answer == .tentative && command.noMail && command.comment == "Maybe")
        #expect(
            Self.usageError(["respond", "ID"]) == "give the event's id and the answer (accept, tentative, decline)")
        #expect(
            Self.usageError(["respond", "ID", "yes"])
                == "the answer must be one of accept, tentative, decline, not 'yes'")
    }
}
