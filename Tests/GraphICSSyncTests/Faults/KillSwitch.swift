internal import CSQLite
import Foundation
import GraphICS
import Synchronization
import Testing

@testable import GraphICSMirror
@testable import GraphICSSync

/// One instant of a sync at which a kill test's child process SIGKILLs itself: the `occurrence`th time
/// (counted from 1) the run reaches `step`.
struct KillPoint: Codable, Sendable, CustomStringConvertible, CustomTestStringConvertible {
    enum Step: String, Codable, Sendable, CaseIterable {
        /// Just before a request leaves for Graph (the previous answers are in, this one is not sent).
        case beforeRequest
        /// Just after Graph's answer came back, before graph-ics reads it: Graph has done the write, the
        /// folder and the state do not know yet.
        case afterResponse
        /// Inside SQLite's commit of a state transaction, before it is durable (it rolls back).
        case beforeCommit
        /// Just after a state transaction is durable in the write-ahead log.
        case afterCommit
        /// After a pull batch's files are on disk, before the state records them.
        case beforeRecording
    }

    var step: Step
    var occurrence: Int

    init(_ step: Step, _ occurrence: Int) {
        self.step = step
        self.occurrence = occurrence
    }

    var description: String { "\(step.rawValue) #\(occurrence)" }
    var testDescription: String { description }

    /// `points`, or under `GRAPH_ICS_TEST_KILL_STRIDE=N` (scripts/test-sanitizers sets it) every Nth of each
    /// step's points, its first and last kept: the sanitizer run looks for memory errors, which the same code
    /// paths show at fewer points, while the plain test run kills at every point.
    static func sampled(_ points: [KillPoint]) -> [KillPoint] {
        guard let text = ProcessInfo.processInfo.environment["GRAPH_ICS_TEST_KILL_STRIDE"], let stride = Int(text),
            stride > 1
        else { return points }
        var kept: [KillPoint] = []
        for step in Step.allCases {
            let ofStep = points.filter { $0.step == step }
            for (index, point) in ofStep.enumerated() where index % stride == 0 || index == ofStep.count - 1 {
                kept.append(point)
            }
        }
        return kept
    }

    /// `count` points of `step` spread evenly over its occurrences 1 … `total`, both ends included.
    static func spread(_ step: Step, over total: Int, count: Int) -> [KillPoint] {
        guard count > 1 else { return [KillPoint(step, 1)] }
        let occurrences = (0..<count).map { 1 + $0 * (total - 1) / (count - 1) }
        return Array(Set(occurrences)).sorted().map { KillPoint(step, $0) }
    }
}

/// The child's side of a kill test: counts the steps a sync reaches (through the transport it is given,
/// SQLite's commit and write-ahead-log hooks, and the pull's recording hook) and SIGKILLs the process at
/// the armed point, after writing the point to a marker file so that the parent can tell the point was
/// reached and not skipped.
enum KillSwitch {
    private struct Armed {
        var point: KillPoint?
        var marker = ""
        var counts: [KillPoint.Step: Int] = [:]
    }

    private static let armed = Mutex(Armed())

    /// Arms the switch in this (child) process.
    static func arm(_ point: KillPoint, marker: String) {
        armed.withLock {
            $0.point = point
            $0.marker = marker
        }
    }

    /// Counts one `step`; at the armed point, writes the marker and kills the process.
    static func reached(_ step: KillPoint.Step) {
        let hit: String? = armed.withLock { state in
            state.counts[step, default: 0] += 1
            guard let point = state.point, point.step == step, point.occurrence == state.counts[step] else {
                return nil
            }
            return state.marker
        }
        guard let hit else { return }
        write(Data("reached \(step.rawValue)\n".utf8), to: hit)
        kill(getpid(), SIGKILL)
    }

    /// Called when the run finished without reaching the armed point: the marker says how far it got.
    static func finished() {
        let (marker, counts) = armed.withLock { ($0.marker, $0.counts) }
        let summary = KillPoint.Step.allCases.map { "\($0.rawValue)=\(counts[$0, default: 0])" }
        write(Data("finished \(summary.joined(separator: " "))\n".utf8), to: marker)
    }

    private static func write(_ data: Data, to path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return }
        _ = data.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    /// Installs the commit and write-ahead-log hooks on the state's connection. (SQLite's automatic
    /// checkpoint uses the same hook slot, so the child's log grows until it exits; no matter for a test.)
    static func watch(_ state: SyncState) {
        let handle = state.database.connection.handle
        sqlite3_commit_hook(
            handle,
            { _ in
                KillSwitch.reached(.beforeCommit)
                return 0
            }, nil)
        sqlite3_wal_hook(
            handle,
            { _, _, _, _ in
                KillSwitch.reached(.afterCommit)
                return SQLITE_OK
            }, nil)
    }
}

/// A transport that reports each request to the ``KillSwitch`` before it is sent and after its answer.
struct KillingTransport: HTTPTransport {
    let inner: any HTTPTransport

    func send(_ request: HTTPRequest) throws -> HTTPResponse {
        KillSwitch.reached(.beforeRequest)
        let response = try inner.send(request)
        KillSwitch.reached(.afterResponse)
        return response
    }
}
