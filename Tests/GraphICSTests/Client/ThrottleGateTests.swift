import Foundation
import Testing

@testable import GraphICS

/// Requests a throttle gate let go while a hold it had set was still in force, read from its journal in
/// the order it decided: each admission is judged against the latest hold before it. A thread that slept
/// out exactly that hold (its own `Retry-After`) may go; any other admission before the hold's end is one
/// the client sent although it knew it had to wait.
func admittedWhileHeld(_ journal: [ThrottleGate.Decision]) -> Int {
    var latest: (generation: Int, until: ContinuousClock.Instant)?
    var count = 0
    for decision in journal {
        switch decision {
        case .held(let generation, let until):
            latest = (generation, until)
        case .admitted(let at, let waitedOut):
            guard let hold = latest, at < hold.until, waitedOut != hold.generation else { continue }
            count += 1
        }
    }
    return count
}

@Suite struct ThrottleGateTests {
    @Test("a hold stops every request until it ends, except the thread that slept it out")
    func holdsAndAdmissions() {
        let gate = ThrottleGate()
        gate.startJournal()
        #expect(gate.admit(unless: nil))
        let generation = gate.hold(for: .seconds(30))
        #expect(generation == 1)
        #expect(!gate.admit(unless: nil))
        #expect(gate.remaining(unless: nil)?.generation == 1)
        // The thread whose own retry delay covered this hold goes on; a shorter hold changes nothing.
        #expect(gate.admit(unless: 1))
        #expect(gate.hold(for: .seconds(1)) == nil)
        // A longer hold is a new generation: the thread that slept out the first one waits again.
        #expect(gate.hold(for: .seconds(60)) == 2)
        #expect(!gate.admit(unless: 1))
        #expect(gate.journal.count == 4)
        #expect(admittedWhileHeld(gate.journal) == 0)
    }

    @Test("a hold that has run out lets requests go")
    func expiredHold() {
        let gate = ThrottleGate()
        #expect(gate.hold(for: .milliseconds(1)) == 1)
        usleep(5_000)
        #expect(gate.admit(unless: nil))
        #expect(gate.remaining(unless: nil) == nil)
        #expect(gate.journal.isEmpty, "no journal unless started")
    }

    @Test("the journal's judge counts an admission inside a hold it was not excused from")
    func judgeFindsViolations() {
        let now = ContinuousClock.now
        let journal: [ThrottleGate.Decision] = [
            .admitted(at: now, waitedOut: nil),
            .held(generation: 1, until: now + .seconds(1)),
            .admitted(at: now + .milliseconds(10), waitedOut: nil),
            .admitted(at: now + .milliseconds(20), waitedOut: 1),
            .admitted(at: now + .seconds(2), waitedOut: nil),
            .held(generation: 2, until: now + .seconds(5)),
            .admitted(at: now + .seconds(3), waitedOut: 1),
        ]
        #expect(admittedWhileHeld(journal) == 2)
    }
}
