/// One subcommand of `graph-ics`.
protocol Command {
    /// The word after `graph-ics`.
    static var name: String { get }
    /// One line for the command list.
    static var abstract: String { get }
    /// The full help text, usage line first.
    static var help: String { get }
    /// Reads the arguments after the command name.
    init(arguments: [String]) throws(UsageError)
    /// Runs the command; the returned status becomes the exit status.
    func run(_ terminal: Terminal) throws -> ExitStatus
}

extension Command {
    /// The first line of ``help``.
    static var usage: String {
        String(help.split(separator: "\n", maxSplits: 1).first ?? "")
    }
}
