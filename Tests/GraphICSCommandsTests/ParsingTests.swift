import Testing

@testable import GraphICSCommands

/// The command line read in-process: usage errors and their format, suggestions, enum values, `help`.
@Suite struct ParsingTests {
    static let topUsage = "Usage: graph-ics <command> [options]"

    /// The lines a command line's usage error prints, or nil when it is none.
    static func usageError(_ arguments: [String]) -> [String]? {
        guard case .usageError(let report) = Program.invocation(arguments) else { return nil }
        return report.lines
    }

    @Test("a misspelt command is a usage error that suggests the nearest command")
    func misspeltCommand() {
        #expect(
            Self.usageError(["exprot", "-o", "x.ics"]) == [
                "error: unknown command 'exprot' (did you mean 'export'?)", Self.topUsage, "See 'graph-ics --help'.",
            ])
        #expect(Self.usageError(["calendar"])?.first == "error: unknown command 'calendar' (did you mean 'calendars'?)")
        #expect(Self.usageError(["frobnicate"])?.first == "error: unknown command 'frobnicate'")
        #expect(
            Self.usageError(["--versoin"])?.first == "error: unknown option '--versoin' (did you mean '--version'?)")
    }

    @Test("a misspelt option is a usage error with the command's usage line and help hint")
    func misspeltOption() throws {
        let lines = try #require(Self.usageError(["export", "--calender", "Work"]))
        #expect(
            lines == [
                "error: unknown option '--calender' (did you mean '--calendar'?)",
                "Usage: graph-ics export [--week WEEK | --month MONTH | --from DATE --to DATE] [--calendar NAME|ID]... "
                    + "[--all-calendars]",
                "See 'graph-ics export --help'.",
            ])
        #expect(
            Self.usageError(["import", "--dryrun"])?.first
                == "error: unknown option '--dryrun' (did you mean '--dry-run'?)")
        #expect(Self.usageError(["convert", "-x"])?.first == "error: unknown option '-x'")
    }

    @Test(
        "an enum-valued option lists its choices when the value is none of them",
        arguments: [
            (["export", "--recurrence", "weekly"], "--recurrence must be instances or series, not 'weekly'"),
            (
                ["export", "--recurrence", "serie"],
                "--recurrence must be instances or series, not 'serie' (did you mean 'series'?)"
            ),
            (["import", "--on-duplicate", "replace"], "--on-duplicate must be skip, update or new, not 'replace'"),
            (["convert", "--to", "json"], "--to must be ics or graph-json, not 'json'"),
            (["completions", "tcsh"], "the shell must be bash, zsh or fish, not 'tcsh'"),
        ])
    func enumChoices(arguments: [String], message: String) {
        #expect(Self.usageError(arguments)?.first == "error: " + message)
    }

    @Test("help COMMAND prints the command's help; help with an unknown command is a usage error")
    func helpCommand() throws {
        guard case .command(let command, _) = Program.invocation(["help", "export"]) else {
            Issue.record("help export is not a command")
            return
        }
        let help = try #require(command as? HelpCommand)
        guard case .output(let text) = Program.invocation(["export", "--help"]) else {
            Issue.record("export --help prints nothing")
            return
        }
        #expect(help.text == text)
        #expect(text == HelpPage.render(ExportCommand.info))
        guard case .command(let top, _) = Program.invocation(["help"]) else { return }
        #expect((top as? HelpCommand)?.text == Program.help)
        #expect(
            Self.usageError(["help", "nosuch"]) == [
                "error: unknown command 'nosuch'", "Usage: graph-ics help [COMMAND] [--man]",
                "See 'graph-ics help --help'.",
            ])
        #expect(Self.usageError(["help", "agnda"])?.first == "error: unknown command 'agnda' (did you mean 'agenda'?)")
    }

    @Test("-h or --help anywhere before -- asks for the help; after -- it is an operand")
    func helpFlag() {
        for arguments in [["convert", "-h"], ["convert", "x.json", "--help"], ["-h"], ["--help"]] {
            guard case .output = Program.invocation(arguments) else {
                Issue.record("\(arguments) printed no help")
                continue
            }
        }
        guard case .command(let command, _) = Program.invocation(["convert", "--", "--help"]) else {
            Issue.record("convert -- --help is not a conversion of the file --help")
            return
        }
        #expect((command as? ConvertCommand)?.input == "--help")
    }

    @Test("the conventions: --opt=value, -- ends options, - is an operand, one value per option")
    func conventions() throws {
        let convert = try ConvertCommand.parse(["--to=ics", "--", "-o"])
        #expect(convert.target == .ics && convert.input == "-o" && convert.output == nil)
        #expect(try ConvertCommand.parse(["-"]).input == "-")
        let twice = usageMessage { () throws(UsageError) in _ = try ConvertCommand.parse(["-o", "a", "--output", "b"]) }
        #expect(twice == "--output is given more than once")
        let flagValue = usageMessage { () throws(UsageError) in _ = try ConvertCommand.parse(["--strict=yes"]) }
        #expect(flagValue == "--strict takes no value")
        let empty = usageMessage { () throws(UsageError) in _ = try ExportCommand.parse(["-o", ""]) }
        #expect(empty == "-o needs a file name or '-'")
    }

    @Test("a usage error thrown while running uses the command's own usage line")
    func usageReportOfACommand() {
        let report = UsageReport(message: "no input", command: ImportCommand.info)
        #expect(
            report.lines == [
                "error: no input",
                "Usage: graph-ics import [FILE|-]... [--calendar NAME|ID] [--user UPN] [--dry-run] [--as-meeting --yes]",
                "See 'graph-ics import --help'.",
            ])
    }

    @Test(
        "edit distance counts insertions, deletions, substitutions and neighbour swaps",
        arguments: [("exprot", "export", 1), ("kitten", "sitting", 3), ("", "abc", 3), ("agenda", "agenda", 0)])
    func distance(a: String, b: String, expected: Int) {
        #expect(Suggestion.distance(a, b) == expected)
    }

    @Test("choices are listed as English lists")
    func choiceList() {
        #expect(Choice.list(["a"]) == "a")
        #expect(Choice.list(["a", "b"]) == "a or b")
        #expect(Choice.list(["a", "b", "c"]) == "a, b or c")
    }
}
