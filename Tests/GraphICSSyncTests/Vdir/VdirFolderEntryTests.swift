import Foundation
import TestSupport
import Testing

@testable import GraphICSSync

@Suite struct VdirFolderEntryTests {
    @Test("one item's entry is what a scan sees; no file, or a folder under an item's name, is nil")
    func entryOfOneItem() throws {
        let directory = try TemporaryDirectory()
        let folder = try VdirFolder(path: directory.path)
        #expect(try folder.entry("a.ics") == nil)
        try folder.write(Data("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n".utf8), to: "a.ics")
        #expect(try folder.entry("a.ics") == (try folder.scan().first))
        try FileManager.default.createDirectory(atPath: directory.file("b.ics"), withIntermediateDirectories: false)
        #expect(try folder.entry("b.ics") == nil)
        #expect(throws: SyncStoreError.self) { try folder.entry("notes.txt") }
    }
}
