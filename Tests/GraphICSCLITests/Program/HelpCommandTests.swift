import Foundation
import Testing

/// `help`, `completions` and usage errors through the built binary: what reaches stdout and stderr, and the
/// exit status.
@Suite struct HelpCommandTests {
    @Test("help with an unknown command is a usage error, exit 64")
    func helpUnknownCommand() throws {
        let result = try graphICS(["help", "nosuch"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty, "stdout: \(result.out)")
        #expect(
            result.errLines == [
                "error: unknown command 'nosuch'", "Usage: graph-ics help [COMMAND] [--man]",
                "See 'graph-ics help --help'.",
            ], "stderr: \(result.err)")
    }

    @Test("a misspelt command gets a suggestion on stderr, exit 64")
    func misspeltCommand() throws {
        let result = try graphICS(["exprot"])
        #expect(result.status == 64)
        #expect(result.errLines.first == "error: unknown command 'exprot' (did you mean 'export'?)")
    }

    @Test("help --man prints docs/graph-ics.1")
    func manual() throws {
        let result = try graphICS(["help", "--man"])
        #expect(result.status == 0, "stderr: \(result.err)")
        let recorded = try String(contentsOf: Package.root.appendingPathComponent("docs/graph-ics.1"), encoding: .utf8)
        let same = result.out == recorded
        #expect(same, "graph-ics help --man differs from docs/graph-ics.1")
        #expect(result.stderr.isEmpty)
    }

    @Test("the manual page lists the environment variables itself and has a FILES section")
    func manualEnvironmentAndFiles() throws {
        let result = try graphICS(["help", "--man"])
        #expect(result.status == 0, "stderr: \(result.err)")
        let page = result.out
        let environment = try #require(page.range(of: ".SH ENVIRONMENT\n"), "no ENVIRONMENT section")
        let files = try #require(page.range(of: ".SH FILES\n"), "no FILES section")
        let environmentText = page[environment.upperBound..<files.lowerBound]
        #expect(!environmentText.contains("README"), "\(environmentText)")
        for name in ["GRAPH_ICS_CONFIG_DIR", "GRAPH_ICS_STATE_DIR", "GRAPH_ICS_ACCESS_TOKEN", "GRAPH_ICS_TIMEOUT"] {
            #expect(environmentText.contains(name), "\(name)")
        }
        let filesText = page[files.upperBound...]
        for name in ["config", "feeds.json", "state.sqlite3", "conflicts/", "account\\-*.json"] {
            #expect(filesText.contains(name), "FILES names \(name)")
        }
    }

    @Test("completions prints a script for each shell on stdout", arguments: ["bash", "zsh", "fish"])
    func completions(shell: String) throws {
        let result = try graphICS(["completions", shell])
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.out.contains("\(shell) completion for graph-ics"))
        #expect(result.stderr.isEmpty)
    }
}
