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
    /// dry run's report written as its results come (``writeJSON(isDryRun:leading:encoded:counts:into:)``).
    public static func encoded(_ results: some Sequence<ImportResult>) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for result in results {
            bytes += Array(",\n    ".utf8)
            bytes += try JSONOutput.fragment(JSONValue(encoding: result), depth: 2)
        }
        return bytes
    }

    /// The results of a report written in parts, each group as ``ImportReport/encoded(_:)`` wrote it, kept in
    /// order until the report is written (the failures, known last, come first): in memory up to
    /// `memoryLimit`, then in an unlinked temporary file (``SpoolFile``), so that the dry run of a large
    /// calendar does not hold its whole report.
    public final class EncodedResults {
        fileprivate let spool: SpoolFile
        /// Where each group is in the spool, in order.
        fileprivate private(set) var groups: [(offset: Int64, length: Int)] = []

        /// - Parameter directory: where the temporary file goes; nil for `TMPDIR`, else `/tmp`.
        public init(directory: String? = nil, memoryLimit: Int = 8 << 20) throws(ICalBridgeError) {
            spool = try SpoolFile(directory: directory, memoryLimit: memoryLimit)
        }

        /// Keeps a group of results ``ImportReport/encoded(_:)`` wrote, after those kept before.
        public func append(_ encoded: [UInt8]) throws(ICalBridgeError) {
            guard !encoded.isEmpty else { return }
            groups.append((try spool.append(encoded), encoded.count))
        }
    }

    /// Writes ``jsonData(verification:)`` (without verification) of the report of `leading`, then of the
    /// results kept in `encoded`, in order, into `sink` a group at a time; `counts` counts those results by
    /// their action.
    public static func writeJSON<Sink: ByteSink>(
        isDryRun: Bool, leading: [ImportResult], encoded: EncodedResults, counts: [ImportResult.Action: Int],
        into sink: inout Sink
    ) throws {
        var summary: [String: JSONValue] = [:]
        for action in ImportResult.Action.allCases {
            summary[action.rawValue] = .int(leading.filter { $0.action == action }.count + (counts[action] ?? 0))
        }
        try sink.write(Array("{\n  \"dryRun\": \(isDryRun),\n  \"events\": ".utf8))
        let first = try Self.encoded(leading)
        if first.isEmpty && encoded.groups.isEmpty {
            try sink.write(Array("[],\n  \"summary\": ".utf8))
        } else {
            // The first result follows the bracket: its `,\n    ` is left out.
            let separator = ",\n    ".utf8.count
            try sink.write(Array("[\n    ".utf8))
            if !first.isEmpty { try sink.write(Array(first.dropFirst(separator))) }
            var buffer: [UInt8] = []
            for (number, group) in encoded.groups.enumerated() {
                let skipped = first.isEmpty && number == 0 ? separator : 0
                try encoded.spool.copy(
                    offset: group.offset + Int64(skipped), length: group.length - skipped, into: &sink,
                    buffer: &buffer)
            }
            try sink.write(Array("\n  ],\n  \"summary\": ".utf8))
        }
        try sink.write(try JSONOutput.fragment(.object(summary), depth: 1) + Array("\n}".utf8))
    }
}
