import Foundation
import GraphICS
import Testing

@Suite struct StateDirectoryTests {
    @Test("GRAPH_ICS_STATE_DIR, else an absolute XDG_STATE_HOME, else ~/.local/state")
    func precedence() throws {
        let all = ["GRAPH_ICS_STATE_DIR": "/s", "XDG_STATE_HOME": "/x", "HOME": "/h"]
        #expect(try StateDirectory.path(all) == "/s")
        #expect(try StateDirectory.path(all.merging(["GRAPH_ICS_STATE_DIR": ""]) { $1 }) == "/x/graph-ics")
        #expect(try StateDirectory.path(["XDG_STATE_HOME": "/x", "HOME": "/h"]) == "/x/graph-ics")
        // The XDG base directory spec ignores a relative value.
        #expect(try StateDirectory.path(["XDG_STATE_HOME": "rel", "HOME": "/h"]) == "/h/.local/state/graph-ics")
        #expect(try StateDirectory.path(["HOME": "/h"]) == "/h/.local/state/graph-ics")
    }

    @Test("an existing folder keeps its mode; a file in the way is refused")
    func existingFolder() throws {
        let directory = try AtomicFileTests.Folder()
        let shared = directory.file("shared")
        #expect(mkdir(shared, 0o755) == 0)
        #expect(chmod(shared, 0o755) == 0)
        try StateDirectory.prepare(shared)
        var status = stat()
        #expect(stat(shared, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o755)

        try directory.write("x", to: "file")
        let error = try #require(throws: StateDirectoryError.self) {
            try StateDirectory.prepare(directory.file("file"))
        }
        #expect(error.description.hasPrefix(directory.file("file")))
    }
}
