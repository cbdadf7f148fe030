import Foundation
import TestSupport
import Testing

@testable import GraphICSCommands

/// The help pages and the manual page against their recorded forms; `RECORD_SNAPSHOTS=1` rewrites them.
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

    @Test("groff reads the manual page without a warning")
    func manualIsCleanRoff() throws {
        let result = try runProgram(
            try #require(installed("groff")), ["-man", "-ww", "-z"], input: ManualPage.render(Program.info))
        #expect(result.status == 0 && result.err.isEmpty, "\(result.err)")
    }

    @Test("help lines stay within the help's width")
    func helpWidth() {
        for command in Program.info.commands {
            let lines = HelpPage.options(command.options).split(separator: "\n")
            #expect(lines.allSatisfy { $0.count <= HelpPage.width }, "\(command.name)")
        }
    }
}
