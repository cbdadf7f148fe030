/// `graph-ics help [COMMAND]`: the help of graph-ics or of one command; `--man` prints the manual page of
/// graph-ics (`graph-ics(1)`) or of the command (`graph-ics-COMMAND(1)`).
struct HelpCommand: Command {
    static let name = "help"
    static let abstract = "Show the help of graph-ics or of a command; --man prints the manual page."
    static let synopsis = ["[COMMAND] [--man]"]
    static let discussion = """
        Prints the help of COMMAND (the same as 'graph-ics COMMAND --help'), or without COMMAND the
        list of commands. With --man, prints the manual page in roff instead: graph-ics(1), which lists
        the commands, or with COMMAND its own page, graph-ics-COMMAND(1) (the help, the environment and
        the files). Read one with 'graph-ics help --man sync | man -l -'; once installed,
        'man graph-ics-sync'.
        """
    static var operands: ValueCompletion? { .choices(Program.commands.map { $0.name }) }

    struct Options: OptionGroup {
        let man = Flag("--man", help: "Print the manual page (roff) of graph-ics or of COMMAND instead of the help.")
    }

    /// The command asked about; nil for graph-ics itself.
    var command: CommandInfo?
    var manual: Bool

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        manual = parsed[\.man]
        guard parsed.positionals.count <= 1 else {
            throw UsageError("help takes one command, got \(parsed.positionals.count)")
        }
        if let name = parsed.positionals.first {
            guard let type = Program.command(named: name) else {
                let names = Program.commands.map { $0.name }
                throw UsageError("unknown command '\(name)'" + Suggestion.hint(for: name, among: names))
            }
            command = type.info
        }
    }

    /// What the command prints.
    var text: String {
        if manual {
            return command.map { ManualPage.render($0, program: Program.info) } ?? ManualPage.render(Program.info)
        }
        return command.map(HelpPage.render) ?? Program.help
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        terminal.out(text)
        return .ok
    }
}
