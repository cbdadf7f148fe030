import Foundation
import Testing

@testable import GraphICS

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct AtomicFileTests {
    /// A fresh folder under the system's temporary folder, removed by `deinit`.
    final class Folder {
        let path: String
        init() throws {
            path = (NSTemporaryDirectory() as NSString).appendingPathComponent("graph-ics-atomic-" + UUID().uuidString)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func file(_ name: String) -> String { path + "/" + name }
        func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }
        func contents(_ name: String) -> String? {
            FileManager.default.contents(atPath: file(name)).map { String(decoding: $0, as: UTF8.self) }
        }
        func write(_ text: String, to name: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: file(name)))
        }
        func mode(_ name: String) -> mode_t {
            var status = stat()
            guard stat(file(name), &status) == 0 else { return 0o7777 }
            return status.st_mode & 0o7777
        }
    }

    @Test("a write removes the temporaries of writers that are gone and keeps a live one's and other files'")
    func leftoversOfDeadWritersGo() throws {
        let folder = try Folder()
        // A process id no process has: above the kernel's pid_max.
        let dead = ".feeds.json.tmp-\(Int32.max)-123"
        let live = ".feeds.json.tmp-\(getpid())-456"
        let other = ".account-x.json.tmp-\(Int32.max)-789"
        for name in [dead, live, other] { try folder.write("half", to: name) }
        try AtomicFile(folder.file("feeds.json")).write(Data("{}".utf8))
        #expect(try folder.names() == [other, live, "feeds.json"].sorted())
        #expect(folder.contents("feeds.json") == "{}")
    }

    @Test("a new file gets exactly its mode, whatever was there before")
    func exactModeIsSet() throws {
        let folder = try Folder()
        try folder.write("old", to: "a.json")
        #expect(chmod(folder.file("a.json"), 0o644) == 0)
        try AtomicFile(folder.file("a.json")).write(Data("new".utf8))
        #expect(folder.mode("a.json") == 0o600)
        try AtomicFile(folder.file("b.json"), permissions: .exactly(0o640)).write(Data("new".utf8))
        #expect(folder.mode("b.json") == 0o640)
    }

    @Test("a replacement like the replaced file keeps its mode")
    func replacedModeIsKept() throws {
        let folder = try Folder()
        try folder.write("old", to: "calendar.ics")
        #expect(chmod(folder.file("calendar.ics"), 0o604) == 0)
        try AtomicFile(folder.file("calendar.ics"), permissions: .likeReplaced).write(Data("new".utf8))
        #expect(folder.mode("calendar.ics") == 0o604)
        #expect(folder.contents("calendar.ics") == "new")
    }

    @Test("a write that is not committed leaves the old file whole and no temporary")
    func uncommittedWriteKeepsOldFile() throws {
        let folder = try Folder()
        try folder.write("the old version", to: "a.ics")
        do {
            let replacement = try AtomicFile(folder.file("a.ics")).begin()
            try replacement.write(Data("the new ver".utf8))
            #expect(try folder.names().count == 2)
            #expect(folder.contents("a.ics") == "the old version")
        }
        #expect(try folder.names() == ["a.ics"])
        #expect(folder.contents("a.ics") == "the old version")
    }

    @Test("a rename that fails names the file and removes the temporary")
    func failedRenameNamesTheFile() throws {
        let folder = try Folder()
        // A folder that is not empty cannot be replaced by a file.
        try FileManager.default.createDirectory(atPath: folder.file("taken/inside"), withIntermediateDirectories: true)
        #expect(throws: AtomicFileError(.replace, path: folder.file("taken"), errno: EISDIR)) {
            try AtomicFile(folder.file("taken")).write(Data("x".utf8))
        }
        #expect(try folder.names() == ["taken"])
    }

    @Test("a folder that cannot be written in fails the write before anything is replaced")
    func unwritableFolderFails() throws {
        let folder = try Folder()
        let missing = folder.file("missing")
        #expect(throws: AtomicFileError(.create, path: missing, errno: ENOENT)) {
            try AtomicFile(missing + "/a.json").write(Data("x".utf8))
        }
        #expect(AtomicFileError(.create, path: missing, errno: ENOENT).description.contains(missing))
    }
}
