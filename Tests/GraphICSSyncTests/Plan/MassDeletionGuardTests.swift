import GraphICSSync
import Testing

@Suite struct MassDeletionGuardTests {
    let guarding = MassDeletionGuard(allowsMassDeletion: false)

    @Test(
        "more than a fifth and more than five deletions on one side stop the run",
        arguments: [
            (100, 21, true), (100, 20, false), (30, 6, false), (30, 7, true), (10, 5, false), (10, 6, true),
            (0, 6, true), (6, 6, true), (1_000, 200, false), (1_000, 201, true),
        ] as [(Int, Int, Bool)])
    func thresholds(items: Int, deletions: Int, refused: Bool) throws {
        for side in [MassDeletionGuard.Side.folder, .outlook] {
            let outcome = Result { () throws(MassDeletionGuard.Refusal) in
                try guarding.check(items: items, deletions: [side: deletions])
            }
            switch outcome {
            case .success: #expect(!refused, "\(deletions) of \(items) in \(side) went through")
            case .failure(let refusal):
                #expect(refused, "\(deletions) of \(items) in \(side) was refused")
                #expect(refusal == MassDeletionGuard.Refusal(side: side, deletions: deletions, items: items))
            }
        }
    }

    @Test("the refusal says how many, where, that nothing changed, and how to go on")
    func message() {
        let refusal = MassDeletionGuard.Refusal(side: .outlook, deletions: 40, items: 50)
        #expect(
            refusal.description
                == "this sync would delete 40 of the 50 items in Outlook (more than 1 in 5); nothing was changed."
                + " If that is what you want, run it again with --allow-mass-delete")
    }

    @Test("each side is judged on its own; the folder is named first when both are over")
    func sides() {
        #expect(throws: MassDeletionGuard.Refusal(side: .outlook, deletions: 30, items: 100)) {
            try guarding.check(items: 100, deletions: [.folder: 20, .outlook: 30])
        }
        #expect(throws: MassDeletionGuard.Refusal(side: .folder, deletions: 90, items: 100)) {
            try guarding.check(items: 100, deletions: [.folder: 90, .outlook: 30])
        }
    }

    @Test("--allow-mass-delete lets every deletion through")
    func allowed() throws {
        try MassDeletionGuard(allowsMassDeletion: true).check(items: 100, deletions: [.folder: 100, .outlook: 100])
    }
}
