import Foundation
import GraphICS
import Testing

@testable import GraphICSSync

@Suite struct SyncStateTests {
    let directory: TemporaryDirectory
    let key = SyncPairingKey(account: "adele@contoso.com", calendarID: "AAMkAGI2=", folder: "/home/adele/cal")

    init() throws {
        directory = try TemporaryDirectory()
    }

    private var databasePath: String { directory.file(SyncState.fileName) }

    private func record(_ name: String, uid: String? = nil, graphID: String? = nil) -> SyncItemRecord {
        SyncItemRecord(
            fileName: name, uid: uid ?? name, graphID: graphID, changeKey: graphID.map { "ck-\($0)" },
            size: Int64(name.count), modificationNanoseconds: 1_764_590_000_123_456_789,
            sha256: SHA256.hash(name.utf8))
    }

    @Test("the first open creates the schema at the current version, and a reopen keeps the data")
    func schemaCreatedOnFirstOpen() throws {
        do {
            let state = try SyncState(path: databasePath)
            #expect(try state.database.userVersion == SyncState.schemaVersion)
            let tables = try state.database.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
                $0.string(0)
            }
            #expect(tables == ["item", "occurrence", "pairing"])
            try state.upsert(record("a.ics", graphID: "g1"), in: try state.pairing(key))
        }
        let reopened = try SyncState(path: databasePath)
        #expect(try reopened.items(of: try reopened.pairing(key)) == [record("a.ics", graphID: "g1")])
        #expect(try reopened.database.userVersion == SyncState.schemaVersion)
    }

    @Test("a database from a newer graph-ics, or not graph-ics's, is refused and left alone")
    func refusesForeignOrNewerSchema() throws {
        let newer = directory.file("newer.sqlite3")
        try SQLiteDatabase(path: newer).setUserVersion(SyncState.schemaVersion + 1)
        let error = try #require(throws: SyncStoreError.self) { try SyncState(path: newer) }
        #expect(error.code == .schema)
        #expect(error.message.contains("newer graph-ics"))
        #expect(try SQLiteDatabase(path: newer).userVersion == SyncState.schemaVersion + 1)

        let foreign = directory.file("foreign.sqlite3")
        try SQLiteDatabase(path: foreign).execute("CREATE TABLE notes (x)")
        let foreignError = try #require(throws: SyncStoreError.self) { try SyncState(path: foreign) }
        #expect(foreignError.code == .schema)
        #expect(try SQLiteDatabase(path: foreign).query("SELECT name FROM sqlite_master") { $0.string(0) } == ["notes"])
    }

    @Test("a version 3 database gains the outside-window mark, its items unmarked, and the mark round-trips")
    func migratesFromVersionThree() throws {
        do {
            let database = try SQLiteDatabase(path: databasePath)
            for step in SyncState.migrations.prefix(3) { try database.execute(step) }
            try database.setUserVersion(3)
            try database.run(
                "INSERT INTO pairing (account, calendar_id, folder) VALUES (?, ?, ?)",
                [.text(key.account), .text(key.calendarID), .text(key.folder)])
            try database.run("INSERT INTO item VALUES (1, 'x.ics', 'x', 'g', 'ck', 1, 2, x'00')")
        }
        let state = try SyncState(path: databasePath)
        #expect(try state.database.userVersion == SyncState.schemaVersion)
        let pairing = try state.pairing(key)
        var item = try #require(try state.items(of: pairing).first)
        #expect(item.fileName == "x.ics" && item.changeKey == "ck" && !item.outsideWindow)
        item.outsideWindow = true
        try state.upsert(item, in: pairing)
        #expect(try state.items(of: pairing) == [item])
    }

    @Test("items round-trip, an upsert replaces the record of its file name, a delete forgets it")
    func itemsRoundTrip() throws {
        let state = try SyncState(path: databasePath)
        let pairing = try state.pairing(key)
        #expect(try state.items(of: pairing).isEmpty)
        let local = record("new-in-khal.ics")
        try state.upsert(record("b.ics", graphID: "g2"), in: pairing)
        try state.upsert(local, in: pairing)
        #expect(try state.items(of: pairing) == [record("b.ics", graphID: "g2"), local])
        #expect(try state.items(of: pairing).last?.graphID == nil)
        #expect(try state.items(of: pairing).last?.changeKey == nil)

        var pushed = local
        pushed.graphID = "g3"
        pushed.changeKey = "ck-new"
        pushed.size = 99
        pushed.sha256 = SHA256.hash([1, 2, 3])
        try state.upsert(pushed, in: pairing)
        #expect(try state.items(of: pairing) == [record("b.ics", graphID: "g2"), pushed])

        #expect(try state.deleteItem(fileName: "b.ics", in: pairing))
        #expect(try state.deleteItem(fileName: "b.ics", in: pairing) == false)
        #expect(try state.items(of: pairing) == [pushed])
    }

    @Test("a folder reached through a symbolic link is the same pairing")
    func pairingByRealPath() throws {
        let state = try SyncState(path: databasePath)
        try FileManager.default.createDirectory(atPath: directory.file("cal"), withIntermediateDirectories: false)
        #expect(symlink(directory.file("cal"), directory.file("link")) == 0)
        let direct = try state.pairing(
            SyncPairingKey(account: "a", calendarID: "c", folder: try VdirFolder(path: directory.file("cal"))))
        let throughLink = try state.pairing(
            SyncPairingKey(account: "a", calendarID: "c", folder: try VdirFolder(path: directory.file("link"))))
        #expect(direct == throughLink)
        #expect(direct.key.folder == directory.file("cal"))
    }

    @Test("pairings are kept apart by account, calendar and folder")
    func pairingsAreSeparate() throws {
        let state = try SyncState(path: databasePath)
        let first = try state.pairing(key)
        #expect(try state.pairing(key) == first)
        var otherFolder = key
        otherFolder.folder = "/home/adele/cal2"
        var otherCalendar = key
        otherCalendar.calendarID = "AAMkOther="
        var otherAccount = key
        otherAccount.account = "megan@contoso.com"
        let others = try [otherFolder, otherCalendar, otherAccount].map(state.pairing)
        #expect(Set(others.map(\.id) + [first.id]).count == 4)
        try state.upsert(record("a.ics", graphID: "g1"), in: first)
        for other in others {
            #expect(try state.items(of: other).isEmpty)
            // The same file name, UID and Graph id may be recorded in another pairing.
            try state.upsert(record("a.ics", graphID: "g1"), in: other)
        }
        try state.removePairing(first)
        #expect(try state.items(of: try state.pairing(key)).isEmpty)
        #expect(try state.items(of: others[0]).count == 1)
    }

    @Test("a second file with a recorded UID or Graph id is refused, naming the constraint")
    func uniqueUIDAndGraphID() throws {
        let state = try SyncState(path: databasePath)
        let pairing = try state.pairing(key)
        try state.upsert(record("a.ics", uid: "U1", graphID: "g1"), in: pairing)
        let sameUID = try #require(throws: SQLiteError.self) {
            try state.upsert(record("copy.ics", uid: "U1", graphID: "g2"), in: pairing)
        }
        #expect(sameUID.message.contains("item.uid"))
        #expect(sameUID.sql.contains("INSERT INTO item"))
        let sameGraphID = try #require(throws: SQLiteError.self) {
            try state.upsert(record("other.ics", uid: "U2", graphID: "g1"), in: pairing)
        }
        #expect(sameGraphID.message.contains("item.graph_id"))
        // Two local items not yet in Graph (no id) are fine.
        try state.upsert(record("x.ics"), in: pairing)
        try state.upsert(record("y.ics"), in: pairing)
        #expect(try state.items(of: pairing).count == 3)
    }

    @Test("the delta link and its window are saved, read and forgotten")
    func deltaCheckpoint() throws {
        let state = try SyncState(path: databasePath)
        let pairing = try state.pairing(key)
        #expect(try state.deltaCheckpoint(of: pairing) == nil)
        let window = SyncWindow(start: 1_756_684_800, end: 1_791_072_000)
        let checkpoint = DeltaCheckpoint(
            link: "https://graph.microsoft.com/v1.0/me/calendarView/delta?$deltatoken=R0usmci39O", window: window)
        try state.saveDeltaCheckpoint(checkpoint, for: pairing)
        #expect(try SyncState(path: databasePath).deltaCheckpoint(of: pairing) == checkpoint)
        try state.saveDeltaCheckpoint(nil, for: pairing)
        #expect(try state.deltaCheckpoint(of: pairing) == nil)
        try state.removePairing(pairing)
        #expect(throws: SyncStoreError.self) { try state.saveDeltaCheckpoint(checkpoint, for: pairing) }
    }

    @Test("a window covers the windows inside it; dates round inward to whole seconds")
    func windows() {
        let stored = SyncWindow(start: 100, end: 1000)
        #expect(stored.covers(SyncWindow(start: 100, end: 1000)))
        #expect(stored.covers(SyncWindow(start: 200, end: 900)))
        #expect(!stored.covers(SyncWindow(start: 99, end: 900)))
        #expect(!stored.covers(SyncWindow(start: 200, end: 1001)))
        let fractional = SyncWindow(start: Date(timeIntervalSince1970: 10.25), end: Date(timeIntervalSince1970: 20.75))
        #expect(fractional == SyncWindow(start: 11, end: 20))
    }

    @Test("the caller's transaction commits every change together or none of them")
    func callerTransaction() throws {
        struct Interrupted: Error {}
        let state = try SyncState(path: databasePath)
        let pairing = try state.pairing(key)
        let checkpoint = DeltaCheckpoint(link: "https://example/delta", window: SyncWindow(start: 0, end: 10))
        #expect(throws: Interrupted.self) {
            try state.transaction {
                try state.upsert(record("a.ics", graphID: "g1"), in: pairing)
                try state.saveDeltaCheckpoint(checkpoint, for: pairing)
                throw Interrupted()
            }
        }
        #expect(try state.items(of: pairing).isEmpty)
        #expect(try state.deltaCheckpoint(of: pairing) == nil)
        try state.transaction {
            try state.upsert(record("a.ics", graphID: "g1"), in: pairing)
            try state.saveDeltaCheckpoint(checkpoint, for: pairing)
        }
        let other = try SyncState(path: databasePath)
        #expect(try other.items(of: pairing).count == 1)
        #expect(try other.deltaCheckpoint(of: pairing) == checkpoint)
    }

    @Test("opened from the environment, the state lives in GRAPH_ICS_STATE_DIR, created 0700")
    func openedFromEnvironment() throws {
        let stateDirectory = directory.file("nested/state")
        let state = try SyncState(environment: ["GRAPH_ICS_STATE_DIR": stateDirectory, "HOME": "/nonexistent"])
        #expect(state.database.path == stateDirectory + "/" + SyncState.fileName)
        #expect(FileManager.default.fileExists(atPath: state.database.path))
        for path in [directory.file("nested"), stateDirectory] {
            var status = stat()
            #expect(stat(path, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o700)
        }
    }
}
