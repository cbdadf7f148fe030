import Foundation
import GraphICS
import Testing

@testable import GraphICSSync

@Suite struct VdirFolderTests {
    let directory: TemporaryDirectory
    let folder: VdirFolder

    init() throws {
        directory = try TemporaryDirectory()
        folder = try VdirFolder(path: directory.path)
    }

    func contents(_ name: String) -> String? {
        FileManager.default.contents(atPath: directory.file(name)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Sets a file's modification time to 2001-01-01, so that a rewrite shows however fast the test runs.
    private func age(_ name: String) throws {
        var times = [timespec(tv_sec: 978_307_200, tv_nsec: 0), timespec(tv_sec: 978_307_200, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, directory.file(name), &times, 0) == 0)
    }

    private func modificationSeconds(_ name: String) -> Int {
        var status = stat()
        guard stat(directory.file(name), &status) == 0 else { return -1 }
        return status.st_mtim.tv_sec
    }

    @Test("a written item reads back with its hash, and the entry matches what a scan sees")
    func writeAndRead() throws {
        let text = "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"
        let entry = try folder.write(Data(text.utf8), to: "a.ics")
        #expect(contents("a.ics") == text)
        let item = try folder.read("a.ics")
        #expect(item.contents == Data(text.utf8))
        #expect(item.sha256 == SHA256.hash(Data(text.utf8)))
        #expect(item.entry == entry)
        #expect(try folder.scan() == [entry])
        #expect(entry.size == Int64(text.utf8.count))
        // Nothing else is left in the folder (no temporary).
        #expect(try directory.names() == ["a.ics"])
    }

    @Test("a rewrite replaces the file by rename: a new inode, the new bytes, a newer modification time")
    func rewrite() throws {
        let first = try folder.write(Data("old".utf8), to: "a.ics")
        try age("a.ics")
        let second = try folder.write(Data("new and longer".utf8), to: "a.ics")
        #expect(contents("a.ics") == "new and longer")
        #expect(second.inode != first.inode)
        #expect(second.modificationNanoseconds > 978_307_200 * 1_000_000_000)
    }

    @Test("a rewrite keeps the permissions of the file it replaces")
    func rewriteKeepsMode() throws {
        try folder.write(Data("old".utf8), to: "private.ics")
        #expect(chmod(directory.file("private.ics"), 0o600) == 0)
        try folder.write(Data("new".utf8), to: "private.ics")
        var status = stat()
        #expect(stat(directory.file("private.ics"), &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
    }

    @Test("a write that fails midway leaves the old file whole and no temporary")
    func failedWriteKeepsOldFile() throws {
        struct DiskFull: Error {}
        try folder.write(Data("the old version".utf8), to: "a.ics")
        var seenDuringWrite: [String] = []
        #expect(throws: DiskFull.self) {
            _ = try folder.writeAtomically("a.ics") { descriptor in
                _ = "the new ver".withCString { write(descriptor, $0, 11) }
                // Halfway: the temporary is there, readers see the old file and no other item.
                #expect(try directory.names().contains { VdirFolder.isTemporaryName($0) && $0.hasPrefix(".") })
                seenDuringWrite = try folder.scan().map(\.name)
                #expect(contents("a.ics") == "the old version")
                throw DiskFull()
            }
        }
        #expect(seenDuringWrite == ["a.ics"])
        #expect(contents("a.ics") == "the old version")
        #expect(try directory.names() == ["a.ics"])
    }

    @Test("a scan lists *.ics files only: not temporaries, hidden files, other files or folders")
    func scanIgnoresOtherFiles() throws {
        try folder.write(Data("x".utf8), to: "event.ics")
        for name in [".graph-ics-0123.tmp", ".hidden.ics", "notes.txt", "task.vtodo", "card.vcf", "event.ics.tmp"] {
            try directory.write("other", to: name)
        }
        try folder.setMetadata(.displayName, to: "Work")
        try FileManager.default.createDirectory(
            atPath: directory.file("folder.ics"), withIntermediateDirectories: false)
        #expect(symlink(directory.file("missing"), directory.file("dangling.ics")) == 0)
        #expect(try folder.scan().map(\.name) == ["event.ics"])
    }

    @Test("a scan takes no more than stat: sizes and times without reading")
    func scanStats() throws {
        try directory.write("12345", to: "b.ics")
        try directory.write("1", to: "a.ics")
        try age("b.ics")
        let entries = try folder.scan()
        #expect(entries.map(\.name) == ["a.ics", "b.ics"])
        #expect(entries.map(\.size) == [1, 5])
        let aged: Int64 = 978_307_200 * 1_000_000_000
        #expect(entries.map(\.modificationNanoseconds).last == aged)
        // An unreadable file is still listed: a scan opens nothing.
        #expect(chmod(directory.file("b.ics"), 0) == 0)
        #expect(try folder.scan().map(\.size) == [1, 5])
    }

    @Test("delete removes the item only, and says when there was none")
    func delete() throws {
        try folder.write(Data("x".utf8), to: "a.ics")
        try directory.write("keep", to: "notes.txt")
        #expect(try folder.delete("a.ics"))
        #expect(try folder.delete("a.ics") == false)
        #expect(try directory.names() == ["notes.txt"])
    }

    @Test(
        "names that are not item files are refused",
        arguments: ["../x.ics", "sub/x.ics", ".x.ics", "displayname", ".ics"])
    func refusesOtherNames(name: String) throws {
        let error = try #require(throws: SyncStoreError.self) { try folder.write(Data(), to: name) }
        #expect(error.code == .invalidValue)
        #expect(try directory.names().isEmpty)
    }

    @Test("leftover temporaries of a killed run are removed, nothing else")
    func leftoverTemporaries() throws {
        try directory.write("half", to: ".graph-ics-5f3a.tmp")
        try directory.write("theirs", to: ".other-tool.tmp")
        try folder.write(Data("x".utf8), to: "a.ics")
        #expect(try folder.removeLeftoverTemporaries() == 1)
        #expect(try directory.names() == [".other-tool.tmp", "a.ics"])
    }

    @Test("metadata files are written once and not rewritten while unchanged")
    func metadataOnlyWhenChanged() throws {
        #expect(try folder.metadata(.displayName) == nil)
        #expect(try folder.setMetadata(.displayName, to: "Kalender – Arbeit"))
        #expect(contents("displayname") == "Kalender – Arbeit")
        try age("displayname")
        #expect(try folder.setMetadata(.displayName, to: "Kalender – Arbeit") == false)
        #expect(modificationSeconds("displayname") == 978_307_200)
        #expect(try folder.setMetadata(.displayName, to: "Work"))
        #expect(contents("displayname") == "Work")
        #expect(modificationSeconds("displayname") != 978_307_200)

        // A colour another tool wrote with a line break is the same colour.
        try directory.write("#FFB900\n", to: "color")
        try age("color")
        #expect(try folder.metadata(.color) == "#FFB900")
        #expect(try folder.setMetadata(.color, to: "#FFB900") == false)
        #expect(modificationSeconds("color") == 978_307_200)
        #expect(try folder.setMetadata(.color, to: "#FFB900\n") == false)
        #expect(modificationSeconds("color") == 978_307_200)
        #expect(try directory.names() == ["color", "displayname"])
    }

    @Test("a colour must be #RRGGBB")
    func colours() throws {
        #expect(VdirFolder.vdirColor("#ffb900") == "#ffb900")
        #expect(VdirFolder.vdirColor("#A0B1C2") == "#A0B1C2")
        for bad in ["", "red", "#FFF", "FFB900", "#GGGGGG", "#FFB9000"] {
            #expect(VdirFolder.vdirColor(bad) == nil)
        }
        let error = try #require(throws: SyncStoreError.self) { try folder.setMetadata(.color, to: "red") }
        #expect(error.code == .invalidValue)
        #expect(try folder.metadata(.color) == nil)
    }

    @Test("the folder is known by its real path; a file or a missing path is refused")
    func realPath() throws {
        #expect(symlink(directory.path, directory.path + "-link") == 0)
        defer { unlink(directory.path + "-link") }
        #expect(try VdirFolder(path: directory.path + "-link").path == directory.path)
        #expect(try VdirFolder(path: directory.path + "/./").path == directory.path)
        try directory.write("x", to: "file")
        for path in [directory.file("file"), directory.file("missing")] {
            let error = try #require(throws: SyncStoreError.self) { try VdirFolder(path: path) }
            #expect(error.code == .badLocation)
            #expect(error.description.hasPrefix(path))
        }
    }
}
