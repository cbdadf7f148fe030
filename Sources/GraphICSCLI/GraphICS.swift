internal import CGlibc
import Foundation
import ICalBridge

/// `graph-ics`: parses the command line, runs one command, maps what happened to an exit status.
@main
enum GraphICS {
    static var commands: [any Command.Type] {
        [
            ConvertCommand.self, LoginCommand.self, LogoutCommand.self, WhoAmICommand.self, CalendarsCommand.self,
            AgendaCommand.self, AddCommand.self, ExportCommand.self,
            ImportCommand.self,
        ]
    }

    /// `--version`: graph-ics's version, then the release of the zone database it converts times with (a
    /// tzdata release can change offsets, and so output).
    static var versionText: String {
        let tz = TZData.system
        return """
            graph-ics \(GraphICSVersion.version)
            tzdata \(tz.version ?? "unknown") (\(tz.directory))

            """
    }

    static var help: String {
        var text = """
            graph-ics \(GraphICSVersion.version): Microsoft Graph calendars ↔ iCalendar.

            Usage: graph-ics <command> [options]

            Commands:

            """
        for command in commands {
            text += "  " + command.name.padding(toLength: 10, withPad: " ", startingAt: 0) + command.abstract + "\n"
        }
        text += """

            Options:
              -h, --help    Show help (also 'graph-ics <command> --help').
              --version     Show the version.

            Environment: GRAPH_ICS_ACCESS_TOKEN, GRAPH_ICS_CLIENT_ID, GRAPH_ICS_TENANT, GRAPH_ICS_GRAPH_URL,
            GRAPH_ICS_AUTHORITY, GRAPH_ICS_CONFIG_DIR, GRAPH_ICS_CLIENT_SECRET(_FILE), GRAPH_ICS_TIMEOUT
            (see the README).

            Exit status: 0 ok, 1 some events failed, 64 usage, 65 bad input, 66 input missing,
            69 Graph unavailable, 73 cannot create output, 74 I/O error, 75 temporary failure,
            77 not signed in or no permission.

            """
        return text
    }

    static func main() {
        // A large conversion frees millions of small blocks (libical's trees) on all cores. With glibc's fast
        // bins, those blocks wait to be merged by one thread when the next large block is freed: tens of
        // milliseconds on one core for a 10,000-event file. Without them each free merges at once, on
        // the thread that frees it.
        _ = mallopt(M_MXFAST, 0)
        let terminal = Terminal()
        Interruption.install(terminal)
        let status = run(Array(CommandLine.arguments.dropFirst()), terminal: terminal)
        exit(status.rawValue)
    }

    static func run(_ arguments: [String], terminal: Terminal) -> ExitStatus {
        guard let first = arguments.first else {
            terminal.err(help)
            return .usage
        }
        if first == "-h" || first == "--help" || first == "help" {
            if first == "help", arguments.count > 1, let command = commands.first(where: { $0.name == arguments[1] }) {
                terminal.out(command.help)
            } else {
                terminal.out(help)
            }
            return .ok
        }
        if first == "--version" {
            terminal.out(Self.versionText)
            return .ok
        }
        guard let commandType = commands.first(where: { $0.name == first }) else {
            return usageError(
                UsageError("unknown command '\(first)'"), usage: "Usage: graph-ics <command> [options]", terminal)
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains(where: { $0 == "-h" || $0 == "--help" }) && !rest.contains("--") {
            terminal.out(commandType.help)
            return .ok
        }
        do {
            let command = try commandType.init(arguments: rest)
            return try command.run(terminal)
        } catch let error as UsageError {
            return usageError(error, usage: commandType.usage, terminal)
        } catch let failure as CommandFailure {
            terminal.error(failure.message)
            return failure.status
        } catch let error where FetchFailure.failure(error) != nil {
            let failure = FetchFailure.failure(error) ?? CommandFailure(.unavailable, "\(error)")
            terminal.error(failure.message)
            return failure.status
        } catch {
            terminal.error("\(error)")
            return .ioError
        }
    }

    static func usageError(_ error: UsageError, usage: String, _ terminal: Terminal) -> ExitStatus {
        terminal.err("Error: \(error.message)")
        terminal.err(usage)
        terminal.err("See 'graph-ics --help'.")
        return .usage
    }
}
