/// `graph-ics completions SHELL`: a completion script for bash, zsh or fish, made from the commands' option
/// declarations.
struct CompletionsCommand: Command {
    static let name = "completions"
    static let abstract = "Print a shell completion script (bash, zsh or fish)."
    static let synopsis = ["bash|zsh|fish"]
    static let discussion = """
        Prints a script that teaches the shell the commands of graph-ics, their options and the values
        those options take. Install it where the shell looks for completions, for example:
          bash: graph-ics completions bash > ~/.local/share/bash-completion/completions/graph-ics
          zsh:  graph-ics completions zsh > ~/.zfunc/_graph-ics  (with fpath+=~/.zfunc before compinit)
          fish: graph-ics completions fish > ~/.config/fish/completions/graph-ics.fish
        """
    static let epilogue = """
        Exit status: 0 ok, 64 usage.
        """
    static let operands: ValueCompletion? = .choices(Shell.allCases.map(\.rawValue))

    var shell: Shell

    init(_ parsed: Parsed<NoOptions>) throws(UsageError) {
        guard let word = parsed.positionals.first else {
            throw UsageError("completions needs a shell: \(Choice.list(Shell.allCases.map(\.rawValue)))")
        }
        guard parsed.positionals.count == 1 else {
            throw UsageError("completions takes one shell, got \(parsed.positionals.count)")
        }
        shell = try Choice.parse(word, for: "the shell")
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        terminal.out(Completions.script(for: shell, program: Program.info))
        return .ok
    }
}
