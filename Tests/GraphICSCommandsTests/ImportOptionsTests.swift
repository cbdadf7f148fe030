import Testing

@testable import GraphICSCommands

/// `import`'s own options: --verify and --undo.
@Suite struct ImportOptionsTests {
    @Test func verifyAndUndoAreReadAndCannotBeCombined() throws {
        let verify = try ImportCommand.parse(["--verify", "a.ics"])
        #expect(verify.verify && !verify.undo && verify.inputs == ["a.ics"])
        let undo = try ImportCommand.parse(["--undo", "--dry-run", "a.ics", "https://tickets.example/b.ics"])
        #expect(undo.undo && undo.dryRun && undo.inputs == ["a.ics", "https://tickets.example/b.ics"])
        let both = usageMessage { () throws(UsageError) in _ = try ImportCommand.parse(["--verify", "--undo", "a.ics"])
        }
        #expect(both == "--verify and --undo cannot be combined: run one, then the other")
    }
}
