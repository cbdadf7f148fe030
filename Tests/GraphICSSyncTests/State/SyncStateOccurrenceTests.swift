import Foundation
import GraphICSMirror
import TestSupport
import Testing

@testable import GraphICSSync

@Suite struct SyncStateOccurrenceTests {
    let directory: TemporaryDirectory
    let key = SyncPairingKey(account: "adele@contoso.com", calendarID: "AAMkAGI2=", folder: "/home/adele/cal")

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test("a series item's occurrences lead back to its file, are replaced whole, and go with the pairing")
    func occurrencesLeadToTheirSeries() throws {
        let state = try SyncState(path: directory.file(SyncState.fileName))
        let pairing = try state.pairing(key)
        try state.setOccurrences(["o1", "o2"], of: "series.ics", in: pairing)
        #expect(try state.fileName(ofOccurrence: "o2", in: pairing) == "series.ics")
        try state.setOccurrences(["o2", "o3"], of: "series.ics", in: pairing)
        #expect(try state.fileName(ofOccurrence: "o1", in: pairing) == nil)
        #expect(try state.fileName(ofOccurrence: "o3", in: pairing) == "series.ics")
        try state.clearOccurrences(of: "series.ics", in: pairing)
        #expect(try state.fileName(ofOccurrence: "o2", in: pairing) == nil)

        try state.setOccurrences(["o4"], of: "series.ics", in: pairing)
        try state.removePairing(pairing)
        let again = try state.pairing(key)
        #expect(try state.fileName(ofOccurrence: "o4", in: again) == nil)
    }

    @Test("a series item's occurrences keep their change keys, read back per file")
    func occurrencesKeepTheirChangeKeys() throws {
        let state = try SyncState(path: directory.file(SyncState.fileName))
        let pairing = try state.pairing(key)
        try state.setOccurrences(["o1", "o2"], changeKeys: ["o1": "k1"], of: "series.ics", in: pairing)
        try state.setOccurrences(["p1"], changeKeys: ["p1": "q1"], of: "other.ics", in: pairing)
        let keys = try state.occurrenceChangeKeys(in: pairing)
        #expect(keys["series.ics"] == ["o1": "k1", "o2": String?.none] as [String: String?])
        #expect(keys["other.ics"] == ["p1": "q1"])
        try state.setOccurrences(["o2"], changeKeys: ["o2": "k2"], of: "series.ics", in: pairing)
        #expect(try state.occurrenceChangeKeys(in: pairing)["series.ics"] == ["o2": "k2"])
    }

    @Test("a version 2 database gains the occurrences' change keys and keeps what it had")
    func migratesFromVersionTwo() throws {
        let path = directory.file(SyncState.fileName)
        do {
            let database = try SQLiteDatabase(path: path)
            try database.execute(SyncState.migrations[0])
            try database.execute(SyncState.migrations[1])
            try database.setUserVersion(2)
            try database.run("INSERT INTO pairing (account, calendar_id, folder) VALUES ('a', 'c', '/f')")
            try database.run("INSERT INTO occurrence VALUES (1, 'o', 'x.ics')")
        }
        let state = try SyncState(path: path)
        #expect(try state.database.userVersion == SyncState.schemaVersion)
        let pairing = try state.pairing(SyncPairingKey(account: "a", calendarID: "c", folder: "/f"))
        #expect(try state.fileName(ofOccurrence: "o", in: pairing) == "x.ics")
        #expect(
            try state.occurrenceChangeKeys(in: pairing) == ["x.ics": ["o": String?.none]] as [String: [String: String?]]
        )
    }

    @Test("a version 1 database is migrated to the current version and keeps its items")
    func migratesFromVersionOne() throws {
        let path = directory.file(SyncState.fileName)
        do {
            let database = try SQLiteDatabase(path: path)
            try database.execute(SyncState.migrations[0])
            try database.setUserVersion(1)
            try database.run("INSERT INTO pairing (account, calendar_id, folder) VALUES ('a', 'c', '/f')")
            try database.run(
                "INSERT INTO item VALUES (1, 'x.ics', 'x', 'g', 'ck', 1, 2, x'00')")
        }
        let state = try SyncState(path: path)
        #expect(try state.database.userVersion == SyncState.schemaVersion)
        let pairing = try state.pairing(SyncPairingKey(account: "a", calendarID: "c", folder: "/f"))
        #expect(try state.items(of: pairing).map(\.fileName) == ["x.ics"])
        try state.setOccurrences(["o"], of: "x.ics", in: pairing)
        #expect(try state.fileName(ofOccurrence: "o", in: pairing) == "x.ics")
    }
}
