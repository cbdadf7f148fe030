import Foundation
import GraphICS
import GraphICSMirror
import GraphICSSync
import GraphStandIn
import TestSupport
import Testing

/// The built `graph-ics sync` against a refused sign-in (77, nothing changed) and a full disk (74, the
/// state agreeing with the files; a rerun converges).
@Suite struct SyncFaultCommandTests {
    typealias Scenario = SyncKillCommandTests.Scenario

    /// Every row of the state database, quoted by SQLite, table by table.
    static func rows(_ scenario: Scenario) throws -> [String: [String]] {
        let database = try SQLiteDatabase(path: scenario.stateDirectory + "/" + SyncState.fileName)
        var tables: [String: [String]] = [:]
        for table in try database.query(
            "SELECT name FROM sqlite_master WHERE type = 'table'", row: { $0.string(0) ?? "" })
        {
            let columns = try database.query("SELECT name FROM pragma_table_info(?)", [.text(table)]) {
                $0.string(0) ?? ""
            }
            let row = columns.map { "quote(\"\($0)\")" }.joined(separator: " || '|' || ")
            tables[table] = try database.query("SELECT \(row) FROM \"\(table)\" ORDER BY 1") { $0.string(0) ?? "" }
        }
        return tables
    }

    /// Every file of the folder with its bytes.
    static func files(_ scenario: Scenario) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: scenario.folder) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: scenario.folder + "/" + name))
        }
        return files
    }

    @Test("a refused sign-in exits 77 with one line saying to sign in, and changes neither the folder nor the state")
    func refusedSignInExits77() throws {
        let scenario = try Scenario()
        let rows = try Self.rows(scenario)
        let files = try Self.files(scenario)
        scenario.standIn.revokeAllTokens()
        let result = try scenario.sync()
        #expect(result.status == 77, "stdout: \(result.out) stderr: \(result.err)")
        #expect(result.errLines.count == 1 && result.err.contains("graph-ics login"), "\(result.err)")
        #expect(try Self.rows(scenario) == rows)
        #expect(try Self.files(scenario) == files)
        #expect(scenario.standIn.events().count == 40, "something reached Graph")
    }

    @Test("a disk that fills while the files are written exits 74; the state matches the disk; a rerun converges")
    func fullDiskExits74() throws {
        let scenario = try Scenario()
        let start = Date().addingTimeInterval(2 * 86_400)
        // A file larger than the run may write: `ulimit -f` stands in for a full disk (write fails with EFBIG,
        // SIGXFSZ ignored, the path ENOSPC takes).
        try scenario.standIn.addEvents(count: 1, from: start, to: start.addingTimeInterval(3600), subject: "Huge")
        let huge = try #require(
            scenario.standIn.events().first { ($0["subject"] as? String) == "Huge 1" }?["id"] as? String)
        _ = try scenario.standIn.changeEvent(
            id: huge,
            ["body": ["contentType": "text", "content": String(repeating: "All work and no play. ", count: 100_000)]])
        let binary = try #require(GraphICSBinary.url).path
        let result = try graphICSShell(
            "trap '' XFSZ; ulimit -f 1024; exec '\(binary)' sync '\(scenario.folder)'",
            environment: scenario.environment)
        #expect(result.status == 74, "stdout: \(result.out) stderr: \(result.err)")
        // The first file too large is the calendar's mirror, which stores the event before any .ics file is
        // written (SyncPullFaultTests meets the limit at the folder's files).
        #expect(
            result.err.contains(scenario.stateDirectory + "/mirrors/"), "the message names the file: \(result.err)")
        let database = try SQLiteDatabase(path: scenario.stateDirectory + "/" + SyncState.fileName)
        let records = try database.query("SELECT file_name, sha256 FROM item") { ($0.string(0) ?? "", $0.data(1)) }
        for (name, sha256) in records {
            let path = scenario.folder + "/" + name
            guard let contents = FileManager.default.contents(atPath: path) else {
                // A file deleted here stays recorded until the push sends its deletion.
                continue
            }
            if !scenario.localFileNames.contains(name) {
                #expect(SHA256.hash(contents) == sha256, "\(name) is not what the state recorded")
            }
        }
        #expect(!records.contains { $0.0.contains("Huge") })
        let rerun = try scenario.sync()
        #expect(rerun.status == 0, "rerun: \(rerun.out) \(rerun.err)")
        let files = try FileManager.default.contentsOfDirectory(atPath: scenario.folder).filter { $0.hasSuffix(".ics") }
        #expect(files.count == 44, "\(files.count) files for 44 events")
    }
}

/// Runs `script` with `/bin/sh -c` (the environment as `graphICS` sets it), for limits a shell sets.
func graphICSShell(_ script: String, environment extra: [String: String]) throws -> ProcessResult {
    let child = try ChildProcess("/bin/sh", ["-c", script], environment: graphICSEnvironment(extra))
    let exit = try child.wait(timeout: defaultTimeout)
    return ProcessResult(status: exit.status ?? exit.signal ?? 0, stdout: exit.stdout, stderr: exit.stderr)
}
