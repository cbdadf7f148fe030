import Foundation
import GraphICSSync
import Testing

// The batch writes of VdirFolder, in the suite's own folder and helpers (VdirFolderTests.swift).
extension VdirFolderTests {
    @Test("a batch writes every item, returns their entries in order and leaves no temporary")
    func writesAll() throws {
        try folder.write(Data("old".utf8), to: "item-7.ics")
        let items = (0..<50).map { (name: "item-\($0).ics", contents: Data("event \($0)".utf8)) }
        let entries = try folder.write(batch: items)
        #expect(entries.map(\.name) == items.map(\.name))
        #expect(contents("item-7.ics") == "event 7")
        #expect(contents("item-49.ics") == "event 49")
        #expect(try folder.scan() == entries.sorted { $0.name < $1.name })
        #expect(try directory.names().count == 50)
    }

    @Test("a batch that names a file twice, or a file that is not an item, writes nothing")
    func refusedBatches() throws {
        for batch in [
            [(name: "a.ics", contents: Data()), (name: "a.ics", contents: Data())],
            [(name: "a.ics", contents: Data()), (name: "../b.ics", contents: Data())],
        ] {
            let error = try #require(throws: SyncStoreError.self) { try folder.write(batch: batch) }
            #expect(error.code == .invalidValue)
        }
        #expect(try directory.names().isEmpty)
    }

    @Test("when one rename fails, the items before it are in place, the rest untouched, no temporary left")
    func failedRename() throws {
        try folder.write(Data("old c".utf8), to: "c.ics")
        // A folder named like an item: nothing can be renamed over it.
        try FileManager.default.createDirectory(atPath: directory.file("b.ics"), withIntermediateDirectories: false)
        let batch = ["a.ics", "b.ics", "c.ics"].map { (name: $0, contents: Data("new \($0)".utf8)) }
        let error = try #require(throws: SyncStoreError.self) { try folder.write(batch: batch) }
        #expect(error.code == .io)
        #expect(error.description.hasPrefix(directory.file("b.ics")))
        #expect(contents("a.ics") == "new a.ics")
        #expect(contents("c.ics") == "old c")
        #expect(try directory.names() == ["a.ics", "b.ics", "c.ics"])
    }
}
