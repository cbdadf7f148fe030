import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The built `graph-ics` run in its own session on a pseudo-terminal (TestSupport's ``ChildProcess``), as a
/// person at a terminal runs it: the terminal is its controlling terminal (`/dev/tty`), standard input is the
/// terminal or a pipe, standard output is a pipe (collected), standard error a pipe or (`errorsOnTerminal`) the
/// terminal, as for a command that asks only when both are a terminal. A test waits for text on the screen
/// and types keys. Paths in the arguments are absolute: the child runs in the test's working folder.
final class PseudoTerminalRun: @unchecked Sendable {
    private let child: ChildProcess

    /// What standard input is.
    enum Input {
        /// The terminal itself.
        case terminal
        /// These bytes through a pipe (`cat ticket.ics | graph-ics import -i -`).
        case pipe(Data)
        /// No controlling terminal at all: a new session without one, standard input `/dev/null`.
        case noTerminal
    }

    init(
        _ arguments: [String], input: Input = .terminal, errorsOnTerminal: Bool = false,
        environment: [String: String]
    ) throws {
        var variables = ProcessInfo.processInfo.environment
        for name in variables.keys
        where (name.hasPrefix("GRAPH_ICS_") && name != "GRAPH_ICS_BINARY")
            || ["NO_COLOR", "VISUAL", "EDITOR"].contains(name)
        {
            variables[name] = nil
        }
        variables["TERM"] = "xterm"
        variables.merge(environment) { _, new in new }
        let stdin: ChildProcess.Input
        switch input {
        case .terminal: stdin = .terminal
        case .pipe(let data): stdin = .bytes(data)
        case .noTerminal: stdin = .null
        }
        let noTerminal = if case .noTerminal = input { true } else { false }
        child = try ChildProcess(
            try graphICSPath(), arguments, environment: variables, stdin: stdin,
            stderr: errorsOnTerminal && !noTerminal ? .terminal : .collected, newSession: true, terminal: !noTerminal)
    }

    var pid: pid_t { child.pid }

    /// The terminal's output so far, without the carriage returns the terminal adds.
    var screenText: String { child.screenText }

    /// Waits until `text` appears on the terminal after what earlier waits saw; returns the screen up to it.
    @discardableResult
    func waitFor(_ text: String, timeout: Double = defaultTimeout) throws -> String {
        try child.waitForScreen(text, timeout: timeout)
    }

    /// Types `text` on the terminal (`"\u{03}"` is Ctrl-C).
    func type(_ text: String) {
        child.type(text)
    }

    var errorText: String { String(decoding: child.errors, as: UTF8.self) }

    /// Waits for the process to end; its exit status (128 + n for a signal), stdout and stderr.
    func finish(timeout: Double = defaultTimeout) throws -> (status: Int32, out: String, err: String) {
        let exit = try child.wait(timeout: timeout)
        return (exit.shellStatus, exit.out, exit.err)
    }
}
