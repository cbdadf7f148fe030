import Foundation

/// The outcome of one `graph-ics import` run: a result per event, and the failure that stopped the run
/// early, if one did (Graph unavailable after retries, the sign-in refused).
public struct ImportReport {
    /// One result per event, in input order.
    public var results: [ImportResult]
    /// What stopped the run before every event was done (a `GraphError`, `AuthError` or `CurlError`); the
    /// events it left undone are `failed` in ``results``. A re-run continues safely.
    public var stoppedBy: (any Error)?

    public init(results: [ImportResult] = [], stoppedBy: (any Error)? = nil) {
        self.results = results
        self.stoppedBy = stoppedBy
    }

    /// How many results have `action`.
    public func count(_ action: ImportResult.Action) -> Int {
        results.reduce(0) { $0 + ($1.action == action ? 1 : 0) }
    }

    /// `3 created, 0 updated, 2 skipped, 0 cancelled, 1 failed`.
    public var summary: String {
        ImportResult.Action.allCases.map { "\(count($0)) \($0.rawValue)" }.joined(separator: ", ")
    }

    /// The report as JSON for `--json`: `{"summary": {"created": n, …}, "events": [{"file", "uid",
    /// "recurrenceId", "subject", "action", "eventId", "error", "note"}, …]}`, every key present (`null`
    /// when unknown).
    public func jsonData() throws -> Data {
        struct Document: Encodable {
            var summary: [String: Int]
            var events: [ImportResult]
        }
        var counts: [String: Int] = [:]
        for action in ImportResult.Action.allCases { counts[action.rawValue] = count(action) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(Document(summary: counts, events: results))
    }
}
