import Foundation
import ICalBridge

/// The outcome of one `graph-ics import` run: a result per event, and the failure that stopped the run
/// early, if one did (Graph unavailable after retries, the sign-in refused).
public struct ImportReport {
    /// One result per event, in input order.
    public var results: [ImportResult]
    /// What stopped the run before every event was done (a `GraphError`, `AuthError` or `CurlError`); the
    /// events it left undone are `failed` in ``results``. A re-run continues safely.
    public var stoppedBy: (any Error)?
    /// The report of `import --dry-run`: what would be done, nothing done.
    public var isDryRun: Bool

    public init(results: [ImportResult] = [], stoppedBy: (any Error)? = nil, isDryRun: Bool = false) {
        self.results = results
        self.stoppedBy = stoppedBy
        self.isDryRun = isDryRun
    }

    /// How many results have `action`.
    public func count(_ action: ImportResult.Action) -> Int {
        results.reduce(0) { $0 + ($1.action == action ? 1 : 0) }
    }

    /// `3 created, 0 updated, 2 skipped, 0 cancelled, 1 failed`; for a dry run `3 would create, …`.
    public var summary: String {
        ImportResult.Action.allCases.map { "\(count($0)) \(isDryRun ? $0.conditional : $0.rawValue)" }
            .joined(separator: ", ")
    }

    /// The report as JSON for `--json`: `{"dryRun": false, "summary": {"created": n, …}, "events": [{"file",
    /// "uid", "recurrenceId", "subject", "action", "eventId", "error", "note"}, …]}`, every key present
    /// (`null` when unknown). In a dry run (`"dryRun": true`) the actions are what would be done.
    ///
    /// With `verification` (`import --verify`), the document also has `"verify": [...]`, one object per event
    /// (``VerifyResult``).
    public func jsonData(verification: [VerifyResult]? = nil) throws -> Data {
        struct Document: Encodable {
            var dryRun: Bool
            var summary: [String: Int]
            var events: [ImportResult]
            var verify: [VerifyResult]?
        }
        var counts: [String: Int] = [:]
        for action in ImportResult.Action.allCases { counts[action.rawValue] = count(action) }
        return try JSONOutput.data(
            encoding: Document(dryRun: isDryRun, summary: counts, events: results, verify: verification))
    }
}

extension ImportReport {
    /// Results as they appear in the `events` array of ``jsonData(verification:)``, each after `,\n    `: a
    /// dry run's report written as its results come (``jsonData(isDryRun:leading:encoded:)``).
    public static func encoded(_ results: some Sequence<ImportResult>) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for result in results {
            bytes += Array(",\n    ".utf8)
            bytes += try JSONOutput.fragment(JSONValue(encoding: result), depth: 2)
        }
        return bytes
    }

    /// Writes ``jsonData(verification:)`` (without verification) of the report of `leading`, then of the
    /// results ``encoded(_:)`` wrote into `encoded`, in order, through `write` a part at a time (each part of
    /// `encoded` is let go once written); `counts` counts those results by their action.
    public static func writeJSON(
        isDryRun: Bool, leading: [ImportResult], encoded: inout [[UInt8]], counts: [ImportResult.Action: Int],
        to write: ([UInt8]) -> Void
    ) throws {
        var summary: [String: JSONValue] = [:]
        for action in ImportResult.Action.allCases {
            summary[action.rawValue] = .int(leading.filter { $0.action == action }.count + (counts[action] ?? 0))
        }
        write(Array("{\n  \"dryRun\": \(isDryRun),\n  \"events\": ".utf8))
        encoded.insert(try Self.encoded(leading), at: 0)
        if encoded.allSatisfy(\.isEmpty) {
            write(Array("[],\n  \"summary\": ".utf8))
        } else {
            write(Array("[\n    ".utf8))
            var started = false
            for index in encoded.indices where !encoded[index].isEmpty {
                write(started ? encoded[index] : Array(encoded[index].dropFirst(6)))
                started = true
                encoded[index] = []
            }
            write(Array("\n  ],\n  \"summary\": ".utf8))
        }
        encoded = []
        write(try JSONOutput.fragment(.object(summary), depth: 1) + Array("\n}".utf8))
    }
}
