import Foundation
import ICalBridge
import Synchronization

/// The instant before which a client sends nothing, after Graph asked it to wait (`Retry-After`).
///
/// Each extension of the hold gets a new generation number. A thread that has just slept its own retry
/// delay (at least the `Retry-After` it set) passes that generation and goes on at once, unless another
/// answer has extended the hold since: then it waits for the rest.
///
/// A request leaves through ``admit(unless:)``, which checks the hold and lets the request go in one step
/// under the gate's lock, so that no request leaves once the client knows it must wait. The gate can keep
/// a journal of its decisions (``startJournal()``), in the order it made them, for tests that check this.
final class ThrottleGate: Sendable {
    /// One decision of the gate.
    enum Decision: Equatable {
        /// A hold was set or extended until `until`.
        case held(generation: Int, until: ContinuousClock.Instant)
        /// A request was let go at `at`; `waitedOut` is the hold generation its thread had slept out.
        case admitted(at: ContinuousClock.Instant, waitedOut: Int?)
    }

    private struct State {
        var until: ContinuousClock.Instant?
        var generation = 0
        var journal: [Decision]?
    }

    private let state = Mutex(State())

    /// Sends nothing for `duration` from now; returns the hold's generation if this extended it, `nil` if
    /// an earlier answer already holds longer.
    func hold(for duration: Duration) -> Int? {
        let end = ContinuousClock.now + duration
        return state.withLock { state in
            if let until = state.until, until >= end { return nil }
            state.until = end
            state.generation += 1
            state.journal?.append(.held(generation: state.generation, until: end))
            return state.generation
        }
    }

    /// How long is left to wait and the hold's generation; `nil` when nothing holds, or when the hold is
    /// the generation `waitedOut` (the caller has waited it out already).
    func remaining(unless waitedOut: Int?) -> (left: Duration, generation: Int)? {
        state.withLock { state in Self.remaining(&state, now: .now, unless: waitedOut) }
    }

    /// Lets one request go when nothing holds it (see ``remaining(unless:)``), and notes that in the journal;
    /// false when it must wait first.
    func admit(unless waitedOut: Int?) -> Bool {
        state.withLock { state in
            let now = ContinuousClock.now
            guard Self.remaining(&state, now: now, unless: waitedOut) == nil else { return false }
            state.journal?.append(.admitted(at: now, waitedOut: waitedOut))
            return true
        }
    }

    /// Starts keeping the journal of decisions (empty at first).
    func startJournal() {
        state.withLock { $0.journal = [] }
    }

    /// The decisions since ``startJournal()``, in the order the gate made them.
    var journal: [Decision] {
        state.withLock { $0.journal ?? [] }
    }

    private static func remaining(_ state: inout State, now: ContinuousClock.Instant, unless waitedOut: Int?) -> (
        left: Duration, generation: Int
    )? {
        guard let until = state.until else { return nil }
        let left = now.duration(to: until)
        if left <= .zero {
            state.until = nil
            return nil
        }
        if state.generation == waitedOut { return nil }
        return (left, state.generation)
    }
}
