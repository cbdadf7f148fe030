import Foundation
import GraphICSSync
import TestSupport
import Testing

@Suite struct SyncStateDirectoryTests {
    @Test("GRAPH_ICS_STATE_DIR, else an absolute XDG_STATE_HOME, else ~/.local/state")
    func precedence() throws {
        let all = ["GRAPH_ICS_STATE_DIR": "/s", "XDG_STATE_HOME": "/x", "HOME": "/h"]
        #expect(try SyncStateDirectory.path(all) == "/s")
        #expect(try SyncStateDirectory.path(all.merging(["GRAPH_ICS_STATE_DIR": ""]) { $1 }) == "/x/graph-ics")
        #expect(try SyncStateDirectory.path(["XDG_STATE_HOME": "/x", "HOME": "/h"]) == "/x/graph-ics")
        // The XDG base directory spec ignores a relative value.
        #expect(try SyncStateDirectory.path(["XDG_STATE_HOME": "rel", "HOME": "/h"]) == "/h/.local/state/graph-ics")
        #expect(try SyncStateDirectory.path(["HOME": "/h"]) == "/h/.local/state/graph-ics")
    }

    @Test("an existing folder keeps its mode; a file in the way is refused")
    func existingFolder() throws {
        let directory = try TemporaryDirectory()
        let shared = directory.file("shared")
        #expect(mkdir(shared, 0o755) == 0)
        #expect(chmod(shared, 0o755) == 0)
        try SyncStateDirectory.prepare(shared)
        var status = stat()
        #expect(stat(shared, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o755)

        try directory.write("x", to: "file")
        let error = try #require(throws: SyncStoreError.self) { try SyncStateDirectory.prepare(directory.file("file")) }
        #expect(error.code == .badLocation)
        #expect(error.description.hasPrefix(directory.file("file")))
    }
}
