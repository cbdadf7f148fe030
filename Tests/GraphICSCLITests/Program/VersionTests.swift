import Foundation
import Testing

/// `graph-ics --version`: the version, the C libraries graph-ics runs with, the zone database.
@Suite(.tags(.zoneRules)) struct VersionTests {
    /// What pkg-config says of a library's installed version.
    static func pkgConfig(_ module: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["pkg-config", "--modversion", module]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
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
