import Foundation
import TestSupport
import Testing

@testable import GraphICSCommands

/// The completion scripts: every command and option, valid syntax for each shell, and (for bash and fish,
/// which can be asked from a script) the words offered.
@Suite struct CompletionTests {
    static func script(_ shell: Shell) -> String {
        Completions.script(for: shell, program: Program.info)
    }

    @Test("every script names every command and every visible option", arguments: Shell.allCases)
    func everyCommandAndOption(shell: Shell) {
        let script = Self.script(shell)
        for command in Program.info.commands {
            #expect(script.contains(command.name), "\(shell): \(command.name)")
            for name in command.options.flatMap(\.names) {
                let spelling =
                    shell == .fish
                    ? (name.hasPrefix("--") ? "-l \(name.dropFirst(2))" : "-s \(name.dropFirst())") : name
                #expect(script.contains(spelling), "\(shell): \(command.name) \(name)")
            }
        }
    }

    /// Writes `script` to a temporary file and runs `shell -n` on it.
    static func syntaxCheck(_ shell: String, _ script: String) throws -> ProgramRun {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("graph-ics-completion-\(UUID())")
        try Data(script.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try runProgram(try #require(installed(shell)), ["-n", file.path])
    }

    @Test("the bash script is valid bash")
    func bashSyntax() throws {
        let result = try Self.syntaxCheck("bash", Self.script(.bash))
        #expect(result.status == 0 && result.err.isEmpty, "\(result.err)")
    }

    @Test("the zsh script is valid zsh")
    func zshSyntax() throws {
        let script = Self.script(.zsh)
        #expect(script.hasPrefix("#compdef graph-ics\n"))
        let result = try Self.syntaxCheck("zsh", script)
        #expect(result.status == 0 && result.err.isEmpty, "\(result.err)")
    }

    @Test("the fish script is valid fish")
    func fishSyntax() throws {
        let result = try Self.syntaxCheck("fish", Self.script(.fish))
        #expect(result.status == 0 && result.err.isEmpty, "\(result.err)")
    }

    static let cases: [(line: [String], words: [String])] = [
        (["exp"], ["export"]),
        (["export", "--rec"], ["--recurrence"]),
        (["export", "--recurrence", ""], ["instances", "series"]),
        (["import", "--on-duplicate", "u"], ["update"]),
        (["agenda", "--week", ""], ["this", "next", "last"]),
        (["completions", ""], ["bash", "zsh", "fish"]),
        (["help", "ag"], ["agenda"]),
        (["login", "--us"], []),
    ]

    @Test("bash offers the commands, options and values the declarations name", arguments: cases)
    func bashOffers(line: [String], words: [String]) throws {
        let quoted = (["graph-ics"] + line).map { "'\($0)'" }.joined(separator: " ")
        let program =
            Self.script(.bash) + """
                COMP_WORDS=(\(quoted)); COMP_CWORD=\(line.count); _graph_ics
                printf '%s\\n' "${COMPREPLY[@]}"
                """
        let result = try runProgram(try #require(installed("bash")), ["--norc", "-s"], input: program)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.split(separator: "\n").map(String.init) == words, "\(line)")
    }

    @Test(
        "fish offers the commands, options and values the declarations name",
        arguments: cases)
    func fishOffers(line: [String], words: [String]) throws {
        let commandLine = (["graph-ics"] + line).joined(separator: " ")
        let program = Self.script(.fish) + "complete -C '\(commandLine)'\n"
        let result = try runProgram(try #require(installed("fish")), ["--no-config"], input: program)
        #expect(result.status == 0, "\(result.err)")
        let offered = result.out.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        #expect(offered.sorted() == words.sorted(), "\(line)")
    }
}
