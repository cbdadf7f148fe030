import Foundation
import ICalBridge

/// The command line of `graph-ics`: which command to run with which options, the help pages, and what
/// happened as an exit status.
public enum Program {
    /// Every command, in the order the help lists them.
    static var commands: [any Command.Type] {
        [
            DemoCommand.self, ConvertCommand.self, LoginCommand.self, LogoutCommand.self, AccountsCommand.self,
            WhoAmICommand.self, CalendarsCommand.self,
            AgendaCommand.self, WeekCommand.self, MonthCommand.self,
            AddCommand.self, EditCommand.self, DeleteCommand.self, RespondCommand.self,
            ExportCommand.self, ImportCommand.self, SyncCommand.self, FeedCommand.self, ServeCommand.self,
            DavCommand.self,
            ConfigCommand.self,
            CompletionsCommand.self,
            HelpCommand.self,
        ]
    }

    static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.name == name }
    }

    /// The options taken before a command.
    static let options = [
        OptionSpec(long: "--help", short: "-h", help: "Show help (also 'graph-ics <command> --help')."),
        OptionSpec(
            long: "--version", help: "Show the version, and those of the libraries and the tzdata it runs with."),
    ]

    /// graph-ics as the help, the completion scripts and the manual page show it.
    static var info: ProgramInfo {
        ProgramInfo(
            name: "graph-ics", version: GraphICSVersion.version, summary: "Microsoft Graph calendars ↔ iCalendar.",
            commands: commands.map { $0.info }, options: options,
            sections: [
                ProgramInfo.Section(
                    title: "Environment",
                    text: """
                          GRAPH_ICS_CLIENT_ID      the app registration's client id (--client-id)
                          GRAPH_ICS_TENANT         tenant id or domain, organizations, consumers or common
                                                   (the default; --tenant)
                          GRAPH_ICS_ACCESS_TOKEN   use this bearer token as it is: no sign-in, no refresh
                          GRAPH_ICS_CLIENT_SECRET, GRAPH_ICS_CLIENT_SECRET_FILE
                                                   client secret for app-only access with --user
                          GRAPH_ICS_GRAPH_URL      Graph endpoint, default https://graph.microsoft.com/v1.0
                                                   (--graph-url)
                          GRAPH_ICS_AUTHORITY      sign-in authority, default https://login.microsoftonline.com
                                                   (--authority)
                          GRAPH_ICS_CONFIG_DIR     the configuration folder (see FILES), default
                                                   $XDG_CONFIG_HOME/graph-ics, else ~/.config/graph-ics
                          GRAPH_ICS_STATE_DIR      the state folder (see FILES), default
                                                   $XDG_STATE_HOME/graph-ics, else ~/.local/state/graph-ics
                          GRAPH_ICS_TIMEOUT        seconds one request may take (default 120, at most 3600)
                          TZ                       convert of an .ics without --tz: the zone floating times
                                                   and all-day events are read in
                          NO_COLOR                 no colour on the terminal
                          VISUAL, EDITOR           the editor of import --interactive
                        """),
                ProgramInfo.Section(
                    title: "Files",
                    text: """
                        In the configuration folder ($GRAPH_ICS_CONFIG_DIR), 0700, each file 0600 and written
                        atomically:
                          account-*.json    the saved sign-ins (tokens; never printed)
                          config            the defaults ('graph-ics config')
                          feeds.json        the feeds of 'graph-ics feed', with the secrets of their URLs
                          dav.json          the CalDAV logins of 'graph-ics dav' (password hashes, never passwords)

                        In the state folder ($GRAPH_ICS_STATE_DIR), 0700:
                          state.sqlite3     what sync recorded of each folder and calendar
                          sync-*.lock       one per folder sync works on
                          conflicts/        the texts a settled sync conflict replaced
                          feeds/            serve's copy of each feed's calendar, kept across restarts
                        """),
                ProgramInfo.Section(
                    title: "Exit status",
                    text: """
                        0 ok, 1 some events failed, 64 usage, 65 bad input, 66 input missing,
                        69 Graph unavailable, 73 cannot create output, 74 I/O error, 75 temporary failure,
                        77 not signed in or no permission, 141 the reader of the output went away.
                        """),
            ])
    }

    /// The top-level help.
    static var help: String { HelpPage.render(info) }

    /// `--version`: graph-ics's version, the versions of the C libraries it runs with (``LinkedLibraries``),
    /// then the release of the zone database it converts times with (a tzdata release can change offsets,
    /// and so output).
    static var versionText: String {
        let tz = TZData.system
        let libraries = LinkedLibraries.versions.map { "\($0.name) \($0.version)\n" }.joined()
        return "graph-ics \(GraphICSVersion.version)\n" + libraries
            + "tzdata \(tz.version ?? "unknown") (\(tz.directory))\n"
    }

    /// What a command line asks for, before anything runs.
    enum Invocation {
        /// Text for standard output (help, version); exit 0.
        case output(String)
        /// No arguments: the help on standard error, exit 64.
        case missingCommand(String)
        /// A mistake in the command line; exit 64.
        case usageError(UsageReport)
        /// A command to run.
        case command(any Command, CommandInfo)
    }

    /// Reads a command line: `-h`/`--help` or `--version` first, else a command, whose `-h`/`--help`
    /// anywhere before `--` asks for its help.
    static func invocation(_ arguments: [String]) -> Invocation {
        guard let first = arguments.first else { return .missingCommand(help) }
        if first == "-h" || first == "--help" { return .output(help) }
        if first == "--version" { return .output(versionText) }
        guard let type = command(named: first) else {
            let isOption = first.hasPrefix("-")
            let candidates = isOption ? options.flatMap(\.names) : commands.map { $0.name }
            let message =
                "unknown \(isOption ? "option" : "command") '\(first)'"
                + Suggestion.hint(for: first, among: candidates)
            return .usageError(UsageReport(message: message, program: info))
        }
        let info = type.info
        let rest = Array(arguments.dropFirst())
        if rest.contains(where: { $0 == "-h" || $0 == "--help" }) && !rest.contains("--") {
            return .output(HelpPage.render(info))
        }
        do {
            return .command(try type.parse(rest), info)
        } catch {
            return .usageError(UsageReport(message: error.message, command: info))
        }
    }

    /// Runs a command line and returns the exit status.
    public static func run(_ arguments: [String], terminal: Terminal) -> ExitStatus {
        switch invocation(arguments) {
        case .output(let text):
            terminal.out(text)
            return .ok
        case .missingCommand(let help):
            terminal.err(help)
            return .usage
        case .usageError(let report):
            report.print(terminal)
            return .usage
        case .command(let command, let info):
            return run(command, info, terminal)
        }
    }

    /// Runs `command`, mapping what it throws to a message and an exit status.
    static func run(_ command: any Command, _ info: CommandInfo, _ terminal: Terminal) -> ExitStatus {
        do {
            return try command.run(terminal)
        } catch let error as UsageError {
            UsageReport(message: error.message, command: info).print(terminal)
            return .usage
        } catch let failure as CommandFailure {
            terminal.error(failure.message)
            return failure.status
        } catch let error where FetchFailure.failure(error) != nil {
            let failure = FetchFailure.failure(error) ?? CommandFailure(.unavailable, "\(error)")
            terminal.error(failure.message)
            return failure.status
        } catch {
            terminal.error("\(error)")
            return ExitStatus(for: error)
        }
    }
}

/// A usage error as graph-ics prints it on standard error: `error: MESSAGE`, the usage line of the command
/// (or of graph-ics), and where the help is.
struct UsageReport: Equatable {
    var message: String
    var usage: String
    var helpHint: String

    init(message: String, command: CommandInfo) {
        self.message = message
        usage = command.usage
        helpHint = "See 'graph-ics \(command.name) --help'."
    }

    init(message: String, program: ProgramInfo) {
        self.message = message
        usage = program.usage
        helpHint = "See '\(program.name) --help'."
    }

    /// The lines printed (without colour).
    var lines: [String] { ["error: " + message, usage, helpHint] }

    func print(_ terminal: Terminal) {
        terminal.error(message)
        terminal.err(usage)
        terminal.err(helpHint)
    }
}
