import Foundation
import GraphICS
import Testing

@testable import GraphICSSync

/// A calendar synced once, then changed on both sides (on different items, so that a clean sync has no
/// conflict): what a two-way kill test kills a sync of, and what it checks the end against.
///
/// Here: 6 new files (as khal writes them), 4 files edited, 3 deleted. In Outlook: 5 events renamed, 2
/// removed, 3 added.
final class TwoWayScenario {
    let fixture: PullFixture
    /// The subjects of Graph's events (a series once) a clean sync ends with.
    private(set) var expectedSubjects: [String] = []
    /// The local edits: the subject each edited or new file must have in Graph after the sync.
    private(set) var localSubjects: [String: String] = [:]
    /// The bytes of every file written here, by name: a clean sync leaves them as they are (Graph's version
    /// of them has the change key the push recorded).
    private(set) var localTexts: [String: Data] = [:]
    /// The subjects the local deletions removed.
    private(set) var deletedSubjects: [String] = []
    private var clock = Int(Date().timeIntervalSince1970)

    init() throws {
        fixture = try PullFixture()
        try fixture.seedCalendar()
        try fixture.run()
        var subjects = Set(Self.subjects(fixture))
        try changeLocally(&subjects)
        try changeInOutlook(&subjects)
        expectedSubjects = subjects.sorted()
    }

    /// The subjects of the stand-in's events, a series counted once (its occurrences left out).
    static func subjects(_ fixture: PullFixture) -> [String] {
        fixture.standIn.events().filter { ($0["type"] as? String) != "occurrence" }
            .compactMap { $0["subject"] as? String }.sorted()
    }

    /// The item file whose SUMMARY is `subject`.
    func file(withSubject subject: String) throws -> String {
        try #require(
            try fixture.folder.scan().first { try fixture.text($0.name).contains("\r\nSUMMARY:\(subject)\r\n") }?.name,
            "no file has SUMMARY:\(subject)")
    }

    private func changeLocally(_ subjects: inout Set<String>) throws {
        for index in 1...6 {
            let uid = "local-new-\(index)@khal.example"
            let day = String(format: "%02d", 2 + index)
            try write(
                "local-new-\(index).ics",
                [
                    "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//pimutils//khal//EN", "BEGIN:VEVENT", "UID:\(uid)",
                    "DTSTAMP:20261120T100000Z", "DTSTART:202612\(day)T140000Z", "DTEND:202612\(day)T150000Z",
                    "SUMMARY:Local new \(index)", "END:VEVENT", "END:VCALENDAR",
                ])
            localSubjects["local-new-\(index).ics"] = "Local new \(index)"
            subjects.insert("Local new \(index)")
        }
        for index in 200...203 {
            let name = try file(withSubject: "Event \(index)")
            let text = try fixture.text(name).replacingOccurrences(
                of: "\r\nSUMMARY:Event \(index)\r\n", with: "\r\nSUMMARY:Edited here \(index)\r\n")
            try write(name, text.components(separatedBy: "\r\n").dropLast())
            localSubjects[name] = "Edited here \(index)"
            subjects.remove("Event \(index)")
            subjects.insert("Edited here \(index)")
        }
        for index in 250...252 {
            try fixture.folder.delete(try file(withSubject: "Event \(index)"))
            deletedSubjects.append("Event \(index)")
            subjects.remove("Event \(index)")
        }
    }

    private func changeInOutlook(_ subjects: inout Set<String>) throws {
        let bySubject = Dictionary(
            fixture.standIn.events().compactMap { event in
                (event["subject"] as? String).flatMap { subject in (event["id"] as? String).map { (subject, $0) } }
            }
        ) { first, _ in first }
        for index in 1...5 {
            let id = try #require(bySubject["Event \(index)"])
            try fixture.standIn.changeEvent(id: id, ["subject": "Renamed in Outlook \(index)"])
            subjects.remove("Event \(index)")
            subjects.insert("Renamed in Outlook \(index)")
        }
        for index in 6...7 {
            try fixture.standIn.removeEvent(id: try #require(bySubject["Event \(index)"]))
            subjects.remove("Event \(index)")
        }
        for index in 1...3 {
            try fixture.addSingle("Added in Outlook \(index)", day: 20 + index, id: "outlook-added-\(index)")
            subjects.insert("Added in Outlook \(index)")
        }
    }

    /// Writes `lines` to the item `name` as another tool would, with a modification time a second later than
    /// any before, so that a scan sees the change whatever the clock's resolution.
    private func write(_ name: String, _ lines: some Sequence<String>) throws {
        let path = fixture.folder.path + "/" + name
        let contents = Data((lines.joined(separator: "\r\n") + "\r\n").utf8)
        try contents.write(to: URL(fileURLWithPath: path))
        localTexts[name] = contents
        clock += 1
        var times = [timespec(tv_sec: clock, tv_nsec: 0), timespec(tv_sec: clock, tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    /// One `graph-ics sync` in this process (conflicts reported and skipped, as off a terminal).
    @discardableResult
    func sync() throws -> SyncReport {
        let pairing = try fixture.state.pairing(fixture.pairing.key)
        return try SyncRun(
            client: fixture.client, state: fixture.state, pairing: pairing, folder: fixture.folder,
            stateDirectory: fixture.directory.path, options: SyncOptions(window: fixture.window)
        ).run()
    }

    /// Checks Graph after the sync that followed the kill: the subjects a clean sync gives, no event twice
    /// (by subject, by iCalendar UID), every local edit in Graph unless reported as a conflict.
    func expectGraphLikeCleanSync(conflicts: Set<String>, sourceLocation: SourceLocation = #_sourceLocation) {
        let subjects = Self.subjects(fixture)
        let uids = fixture.standIn.events().filter { ($0["type"] as? String) != "occurrence" }
            .compactMap { $0["iCalUId"] as? String }
        #expect(Set(uids).count == uids.count, "an event is in Graph twice (by UID)", sourceLocation: sourceLocation)
        let twice = Dictionary(grouping: subjects) { $0 }.filter { $0.value.count > 1 }.keys.sorted()
        #expect(twice.isEmpty, "in Graph twice: \(twice)", sourceLocation: sourceLocation)
        for (name, subject) in localSubjects where !conflicts.contains(name) {
            #expect(subjects.contains(subject), "the local edit of \(name) is lost", sourceLocation: sourceLocation)
        }
        for subject in deletedSubjects {
            #expect(
                !subjects.contains(subject), "deleted here, still in Graph: \(subject)", sourceLocation: sourceLocation)
        }
        if conflicts.isEmpty {
            #expect(subjects == expectedSubjects, sourceLocation: sourceLocation)
        }
    }

    /// Checks the folder after a sync that followed the kill, and one more run: the files a clean sync
    /// leaves. Those Graph's changes made are byte for byte what a clean pull of Graph writes; those written
    /// here (new or edited) are as they were written (their new files under the names given here, not the
    /// UID's); every file recorded with its hash; no temporary left.
    func expectFolderLikeCleanSync(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let state = fixture.state
        let folder = fixture.folder
        let records = try state.items(of: state.pairing(fixture.pairing.key))
        #expect(records.map(\.fileName) == (try folder.scan().map(\.name)), sourceLocation: sourceLocation)
        for record in records {
            #expect(
                try folder.read(record.fileName).sha256 == record.sha256, "\(record.fileName)",
                sourceLocation: sourceLocation)
        }
        let cleanPath = fixture.directory.file("clean")
        try FileManager.default.createDirectory(atPath: cleanPath, withIntermediateDirectories: false)
        let cleanFolder = try VdirFolder(path: cleanPath)
        let cleanState = try SyncState(path: fixture.directory.file("clean.sqlite3"))
        let cleanPairing = try cleanState.pairing(
            SyncPairingKey(account: "ada@contoso.example", calendarID: "default", folder: cleanFolder))
        _ = try SyncPull(client: fixture.client, state: cleanState, pairing: cleanPairing, folder: cleanFolder)
            .run(window: fixture.window)
        // A clean pull names the event a new local file made from Graph's iCalUId; the sync keeps the name
        // given here.
        let uids = Dictionary(
            fixture.standIn.events().compactMap { event in
                (event["subject"] as? String).flatMap { subject in (event["iCalUId"] as? String).map { (subject, $0) } }
            }
        ) { first, _ in first }
        let renamed = Dictionary(
            localSubjects.compactMap { name, subject in
                name.hasPrefix("local-new-") ? uids[subject].map { (VdirFileName.forUID($0), name) } : nil
            }
        ) { first, _ in first }
        let expectedNames = try cleanFolder.scan().map { renamed[$0.name] ?? $0.name }.sorted()
        let names = try folder.scan().map(\.name)
        #expect(
            names == expectedNames,
            """
            only here: \(Set(names).subtracting(expectedNames).sorted()); \
            only in a clean pull: \(Set(expectedNames).subtracting(names).sorted())
            """, sourceLocation: sourceLocation)
        for entry in try cleanFolder.scan() {
            let name = renamed[entry.name] ?? entry.name
            guard try folder.entry(name) != nil else { continue }
            let expected = try localTexts[name] ?? cleanFolder.read(entry.name).contents
            #expect(try folder.read(name).contents == expected, "\(name)", sourceLocation: sourceLocation)
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { $0.hasSuffix(".ics") },
            "a temporary or other file was left in the folder", sourceLocation: sourceLocation)
    }
}
