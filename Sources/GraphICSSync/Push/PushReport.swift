import Foundation
import GraphICS
import ICalBridge

/// What one push did, item by item, for the report of `graph-ics sync`.
public struct PushReport: Sendable {
    /// One entry per item the push planned or refused, in the plan's order (refusals first).
    public var items: [PushedItem] = []
    /// Warnings and errors from reading the files (the plan's), each naming the file.
    public var diagnostics: [Diagnostic] = []

    public init(items: [PushedItem] = [], diagnostics: [Diagnostic] = []) {
        self.items = items
        self.diagnostics = diagnostics
    }

    /// The items with conflicts found while applying (Graph's change key moved since the plan, or 412).
    public var conflicts: [PushedItem] { items.filter { if case .conflict = $0.outcome { true } else { false } } }
}

/// What happened to one item of a push.
public struct PushedItem: Equatable, Sendable {
    /// What a push did to Graph for an item it sent.
    public enum Action: String, Equatable, Sendable {
        case new, changed, deleted
    }

    public enum Outcome: Equatable, Sendable {
        /// Sent, and recorded.
        case pushed(Action)
        /// Changed only in what Graph does not hold (line endings, properties Outlook does not keep): nothing
        /// was sent, and the file's new version is recorded.
        case recorded
        /// A meeting the user organises with `attendees` attendees: Graph would mail them, so nothing was sent
        /// (`--as-meeting --yes` sends it).
        case held(attendees: Int)
        /// Changed in Graph too since the last sync (its change key moved, or `If-Match` was answered 412):
        /// nothing was sent.
        case conflict(reason: String)
        /// Graph (or the file) refused it; `requestID` is Graph's, when Graph answered.
        case failed(reason: String, requestID: String?)
        /// Graph cannot hold it as one event (several UIDs, a recurrence `import` would expand): nothing sent.
        case refused(reason: String)
    }

    public var fileName: String
    public var uid: String?
    public var subject: String?
    /// Graph's id of the event (created, changed, deleted, or the one a problem is about).
    public var graphID: String?
    public var outcome: Outcome
    /// What was done besides, for an item pushed: each override of a series Graph refused to move past a
    /// neighbour's day, cancelled in the series and created as an event of its own, in the import's words
    /// (``ImportResult/MovedOccurrence``); nil when there is nothing to say.
    public var note: String?

    public init(
        fileName: String, uid: String?, subject: String?, graphID: String?, outcome: Outcome, note: String? = nil
    ) {
        self.fileName = fileName
        self.uid = uid
        self.subject = subject
        self.graphID = graphID
        self.outcome = outcome
        self.note = note
    }

    /// The note of a push that made `moved` overrides events of their own: their descriptions, joined.
    static func note(_ moved: [ImportResult.MovedOccurrence]) -> String? {
        moved.isEmpty ? nil : moved.map(\.description).joined(separator: "; ")
    }
}

extension PushedItem.Outcome: CustomStringConvertible {
    /// `pushed new`, `held (would mail 3 attendees)`, `conflict: REASON`, `failed: REASON [request-id ID]`,
    /// `refused: REASON`.
    public var description: String {
        switch self {
        case .pushed(let action): "pushed \(action.rawValue)"
        case .recorded: "recorded (nothing Outlook holds changed)"
        case .held(let attendees): "held (would mail \(attendees) attendee\(attendees == 1 ? "" : "s"))"
        case .conflict(let reason): "conflict: \(reason)"
        case .failed(let reason, let requestID):
            "failed: \(reason)" + (requestID.map { reason.contains($0) ? "" : " [request-id \($0)]" } ?? "")
        case .refused(let reason): "refused: \(reason)"
        }
    }

    /// `pushed`, `held`, `conflict`, `failed`, `refused`.
    public var name: String {
        switch self {
        case .pushed: "pushed"
        case .recorded: "recorded"
        case .held: "held"
        case .conflict: "conflict"
        case .failed: "failed"
        case .refused: "refused"
        }
    }
}

extension PushedItem: Encodable {
    private enum Key: String, CodingKey {
        case file, uid, subject, graphId, outcome, action, attendees, reason, requestId, note
    }

    /// `{"file", "uid", "subject", "graphId", "outcome", "action", "attendees", "reason", "requestId", "note"}`:
    /// every key is written, `null` when it does not apply, so scripts can rely on the shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(fileName, forKey: .file)
        try container.encode(uid, forKey: .uid)
        try container.encode(subject, forKey: .subject)
        try container.encode(graphID, forKey: .graphId)
        try container.encode(outcome.name, forKey: .outcome)
        var action: String?
        var attendees: Int?
        var reason: String?
        var requestID: String?
        switch outcome {
        case .pushed(let done): action = done.rawValue
        case .recorded: break
        case .held(let count): attendees = count
        case .conflict(let why), .refused(let why): reason = why
        case .failed(let why, let id): (reason, requestID) = (why, id)
        }
        try container.encode(action, forKey: .action)
        try container.encode(attendees, forKey: .attendees)
        try container.encode(reason, forKey: .reason)
        try container.encode(requestID, forKey: .requestId)
        try container.encode(note, forKey: .note)
    }
}
