import Foundation
import Testing

@testable import GraphICSCommands

/// The folder holding `Package.swift`, found by walking up from this file.
let packageRoot: URL = {
    var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while directory.path != "/" {
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
            return directory
        }
        directory.deleteLastPathComponent()
    }
    return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
}()

/// Recorded text a test compares with: `RECORD_SNAPSHOTS=1` rewrites the file and fails on purpose, so
/// that a recording run is never mistaken for a passing one.
enum Snapshot {
    static let recording = ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1"

    static func expect(_ actual: String, matches file: URL, sourceLocation: SourceLocation = #_sourceLocation) {
        let relative = file.path.replacingOccurrences(of: packageRoot.path + "/", with: "")
        if recording {
            do {
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(actual.utf8).write(to: file)
                Issue.record("recorded \(relative); run again without RECORD_SNAPSHOTS", sourceLocation: sourceLocation)
            } catch {
                Issue.record("cannot record \(relative): \(error)", sourceLocation: sourceLocation)
            }
            return
        }
        guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
            Issue.record("\(relative) is missing; record it with RECORD_SNAPSHOTS=1", sourceLocation: sourceLocation)
            return
        }
        guard expected != actual else { return }
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let common = min(expectedLines.count, actualLines.count)
        let line = (0..<common).first { expectedLines[$0] != actualLines[$0] } ?? common
        let want = line < expectedLines.count ? String(expectedLines[line]) : "(end)"
        let got = line < actualLines.count ? String(actualLines[line]) : "(end)"
        let message =
            "\(relative) is not current (line \(line + 1): recorded '\(want)', now '\(got)'); "
            + "RECORD_SNAPSHOTS=1 swift test --filter GraphICSCommandsTests rewrites it"
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    }
}

/// The path of a program the tests run (bash, zsh, fish, groff: `scripts/setup` installs them); nil, and
/// so a failed `#require`, when it is missing.
func installed(_ name: String) -> String? {
    ["/usr/bin/", "/bin/", "/usr/local/bin/"].map { $0 + name }.first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
}

/// Every option a command declares, hidden ones too.
func declaredSpecs<C: Command>(_ type: C.Type) -> [OptionSpec] {
    C.Options().specs
}

/// Reads `arguments` against a command's declarations only (no checks of the command's own).
func parseDeclarations<C: Command>(_ type: C.Type, _ arguments: [String]) throws(UsageError) {
    _ = try Parsed<C.Options>(arguments)
}

/// The message of the usage error `body` throws, or nil.
func usageMessage(_ body: () throws(UsageError) -> Void) -> String? {
    do {
        try body()
        return nil
    } catch {
        return error.message
    }
}
