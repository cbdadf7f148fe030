/// One subcommand of `graph-ics`. Its options are the stored properties of `Options`; the parser, the help
/// page, the completion scripts and the manual page all read them from there.
protocol Command {
    associatedtype Options: OptionGroup = NoOptions
    /// The word after `graph-ics`.
    static var name: String { get }
    /// One line for the command list.
    static var abstract: String { get }
    /// The usage after `graph-ics NAME`, one string per line of the help's usage.
    static var synopsis: [String] { get }
    /// The text between the usage and the options: what the command does.
    static var discussion: String { get }
    /// The text after the options (examples, exit statuses); may be empty.
    static var epilogue: String { get }
    /// What the shell completes for the words that are not options; nil when the command takes none.
    static var operands: ValueCompletion? { get }
    /// Reads the arguments after the command name.
    init(_ parsed: Parsed<Options>) throws(UsageError)
    /// Runs the command; the returned status becomes the exit status.
    func run(_ terminal: Terminal) throws -> ExitStatus
}

extension Command {
    static var epilogue: String { "" }
    static var operands: ValueCompletion? { nil }

    /// Reads `arguments` (those after the command name) into the command.
    static func parse(_ arguments: [String]) throws(UsageError) -> Self {
        try Self(Parsed(arguments))
    }

    /// What help, completions and the manual page show of this command.
    static var info: CommandInfo {
        CommandInfo(
            name: name, abstract: abstract, synopsis: synopsis, discussion: discussion, epilogue: epilogue,
            options: Options().specs.filter { !$0.isHidden } + [OptionSpec.help], operands: operands)
    }
}

/// A command as the help page, the completion scripts and the manual page show it.
struct CommandInfo: Sendable, Equatable {
    var name: String
    var abstract: String
    var synopsis: [String]
    var discussion: String
    var epilogue: String
    /// The visible options in declaration order, `-h, --help` last.
    var options: [OptionSpec]
    var operands: ValueCompletion?

    /// `Usage: graph-ics NAME …`: the first line of the synopsis, as a usage error shows it.
    var usage: String { usageLines.first ?? "" }

    /// The synopsis lines, the first after `Usage: graph-ics NAME`, the others aligned under it.
    var usageLines: [String] {
        let prefix = "Usage: graph-ics \(name) "
        let indent = String(repeating: " ", count: prefix.count)
        return synopsis.enumerated().map { index, line in (index == 0 ? prefix : indent) + line }
    }
}
