import Foundation
import TestSupport
import Testing

@testable import GraphICSCommands

/// The help pages and the manual pages against their recorded forms; `RECORD_SNAPSHOTS=1` rewrites them.
@Suite struct SnapshotTests {
    static let snapshots = packageRoot.appendingPathComponent("Tests/GraphICSCommandsTests/Snapshots")
    static let manualFile = packageRoot.appendingPathComponent("docs/graph-ics.1")

    @Test("each command's help is the recorded one", arguments: Program.commands.map { $0.name })
    func commandHelp(command: String) throws {
        let info = try #require(Program.command(named: command)).info
        Snapshot.expect(HelpPage.render(info), matches: Self.snapshots.appendingPathComponent("\(command).txt"))
    }

    @Test("the top-level help is the recorded one")
    func topLevelHelp() {
        Snapshot.expect(Program.help, matches: Self.snapshots.appendingPathComponent("graph-ics.txt"))
    }

    @Test("docs/graph-ics.1 is what 'graph-ics help --man' prints")
    func manualIsCurrent() {
        Snapshot.expect(ManualPage.render(Program.info), matches: Self.manualFile)
    }

    @Test("each command's manual page is the recorded one", arguments: Program.commands.map { $0.name })
    func commandManual(command: String) throws {
        let info = try #require(Program.command(named: command)).info
        Snapshot.expect(
            ManualPage.render(info, program: Program.info),
            matches: Self.snapshots.appendingPathComponent("man/graph-ics-\(command).1"))
    }

    @Test("graph-ics(1) lists every command's page; each page holds the environment and the files")
    func manualPagesLinked() throws {
        let program = ManualPage.render(Program.info)
        for command in Program.info.commands {
            #expect(program.contains("\\fBgraph\\-ics\\-\(ManualPage.escape(command.name))\\fR(1)"), "\(command.name)")
            let page = ManualPage.render(command, program: Program.info)
            #expect(page.contains(".TH GRAPH\\-ICS\\-\(ManualPage.escape(command.name.uppercased())) 1 "))
            for section in [".SH SYNOPSIS", ".SH DESCRIPTION", ".SH OPTIONS", ".SH ENVIRONMENT", ".SH FILES"] {
                #expect(page.contains("\n\(section)\n"), "\(command.name): \(section)")
            }
            #expect(page.components(separatedBy: ".SH EXIT STATUS\n").count == 2, "\(command.name): one EXIT STATUS")
        }
        let sync = ManualPage.render(SyncCommand.info, program: Program.info)
        for folder in ["config", "feeds.json", "account\\-*.json", "state.sqlite3", "conflicts/"] {
            #expect(sync.contains(folder), "graph-ics-sync(1) names \(folder)")
        }
    }

    @Test("groff reads every manual page without a warning")
    func manualIsCleanRoff() throws {
        let groff = try #require(installed("groff"))
        let pages =
            [ManualPage.render(Program.info)]
            + Program.info.commands.map { ManualPage.render($0, program: Program.info) }
        for page in pages {
            let result = try runProgram(groff, ["-man", "-ww", "-z"], input: page)
            #expect(result.status == 0 && result.err.isEmpty, "\(page.prefix(80)): \(result.err)")
        }
    }

    @Test("help lines stay within the help's width")
    func helpWidth() {
        for command in Program.info.commands {
            let lines = HelpPage.options(command.options).split(separator: "\n")
            #expect(lines.allSatisfy { $0.count <= HelpPage.width }, "\(command.name)")
        }
    }
}
