import Foundation
import TestSupport
import Testing

/// `graph-ics --version`: the version, the C libraries graph-ics runs with, the zone database.
@Suite(.tags(.zoneRules)) struct VersionTests {
    /// What pkg-config says of a library's installed version.
    static func pkgConfig(_ module: String) throws -> String {
        let run = try runProgram("/usr/bin/env", ["pkg-config", "--modversion", module])
        return run.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func versionNamesTheLibrariesItRunsWithAsTheirPackagesDo() throws {
        let result = try graphICS(["--version"])

        #expect(result.status == 0)
        let lines = result.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 6, "\(lines)")
        let expected = [
            "libical \(try Self.pkgConfig("libical"))", "libcurl \(try Self.pkgConfig("libcurl"))",
            "SQLite \(try Self.pkgConfig("sqlite3"))", "libmicrohttpd \(try Self.pkgConfig("libmicrohttpd"))",
        ]
        #expect(Array(lines.dropFirst().prefix(4)) == expected)
        // The release as tzdata.zi's first line names it, read here independently of graph-ics.
        let zi = try String(contentsOfFile: "/usr/share/zoneinfo/tzdata.zi", encoding: .utf8)
        let release = try #require(zi.split(separator: "\n").first?.split(separator: " ").last)
        #expect(lines.last == "tzdata \(release) (/usr/share/zoneinfo)")
        #expect(lines.first == "graph-ics 0.1.0")
        #expect(result.stderr.isEmpty)
    }
}
