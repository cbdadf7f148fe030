import Foundation
import GraphICS
import ICalBridge

/// `graph-ics import --verify`: reads the imported events back from Graph and compares them with the files.
extension ImportCommand {
    /// Compares each event of `items` with what Outlook holds (``EventImporter/verify(_:)``) and prints one
    /// line per event on standard error: ok, missing, outdated (file newer), different: …; then a summary.
    /// Returns whether everything was `ok`.
    func verify(
        _ items: [ImportItem], _ session: Session, _ userZone: ResolvedZone, _ terminal: Terminal
    ) throws -> [VerifyResult] {
        let results = try EventImporter(client: session.client, displayZone: userZone).verify(items)
        for result in results { terminal.err(result.line) }
        let counts = VerifyResult.Outcome.allCases.map { outcome in
            "\(results.filter { $0.outcome == outcome }.count) \(outcome.rawValue)"
        }
        let mismatches = results.filter { $0.outcome != .ok }.count
        terminal.note(
            "verify: \(counts.joined(separator: ", "))"
                + (mismatches == 0 ? "; Outlook holds every event as the files say" : ""))
        return results
    }

    /// `--dry-run --verify`: only the comparison, nothing imported; exit 1 on any mismatch.
    func verifyOnly(
        _ items: [ImportItem], earlierFailures failures: [ImportResult], _ session: Session,
        _ userZone: ResolvedZone, _ terminal: Terminal
    ) throws -> ExitStatus {
        for failure in failures { terminal.err(failure.line) }
        Self.noteTimes(in: userZone, terminal)
        let results = try verify(items, session, userZone, terminal)
        if json { try printJSON(["verify": results], terminal) }
        return failures.isEmpty && results.allSatisfy({ $0.outcome == .ok }) ? .ok : .partlyFailed
    }
}
