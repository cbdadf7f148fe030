import Foundation
import GraphICSSync
import GraphStandIn
import TestSupport
import Testing

/// The built `graph-ics sync` SIGKILLed while Graph serves its `n`th request (the stand-in runs in the
/// test process, so Graph's side outlives the kill and finishes the write the client never hears of),
/// then run again: Graph ends with every event once and every local edit, and the next run has nothing
/// left to send.
/// One case at a time (`.serialized`): each spawns processes that sync hundreds of files, and dozens at
/// once on a small machine starve the suites that time themselves.
@Suite(.serialized) struct SyncKillCommandTests {
    /// A mailbox with 40 events in the coming days, synced once; then 5 new files, 3 edited, 2 deleted.
    final class Scenario {
        let account: StandInAccount
        let environment: [String: String]
        var folder: String { account.folder.appendingPathComponent("calendar").path }
        var standIn: GraphStandIn { account.standIn }
        var stateDirectory: String { account.folder.appendingPathComponent("state").path }
        private(set) var localSubjects: [String] = []
        /// The files written here (new and edited).
        private(set) var localFileNames: Set<String> = []
        private(set) var deletedSubjects: [String] = []

        /// `events` events in Graph; with `syncedFirst`, one sync, then 5 new files, 3 edited and 2
        /// deleted; without, only the 5 new files, before any sync.
        init(events: Int = 40, syncedFirst: Bool = true) throws {
            account = try StandInAccount()
            account.standIn.addUser(displayName: "Ada Lovelace", mail: "ada@contoso.example", mailboxTimeZone: "UTC")
            var environment = try account.savedSignInEnvironment()
            environment["GRAPH_ICS_STATE_DIR"] = account.folder.appendingPathComponent("state").path
            self.environment = environment
            let start = Date().addingTimeInterval(86_400)
            try standIn.addEvents(count: events, from: start, to: start.addingTimeInterval(20 * 86_400))
            if syncedFirst {
                let first = try sync()
                #expect(first.status == 0, "first sync: \(first.err)")
            } else {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            try writeNewFiles()
            if syncedFirst { try editAndDelete() }
        }

        func sync() throws -> ProcessResult {
            try account.run(["sync", folder], environment: environment)
        }

        private func file(withSubject subject: String) throws -> String {
            let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".ics") }
            return try #require(
                try names.first { name in
                    try String(contentsOfFile: folder + "/" + name, encoding: .utf8).contains("SUMMARY:\(subject)\r\n")
                }, "no file has SUMMARY:\(subject)")
        }

        private func writeNewFiles() throws {
            let day = ISO8601DateFormatter.string(
                from: Date().addingTimeInterval(3 * 86_400), timeZone: .gmt, formatOptions: [.withFullDate]
            ).replacingOccurrences(of: "-", with: "")
            for index in 1...5 {
                let text = [
                    "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//pimutils//khal//EN", "BEGIN:VEVENT",
                    "UID:kill-new-\(index)@khal.example", "DTSTAMP:20261120T100000Z",
                    "DTSTART:\(day)T1\(index)0000Z", "DTEND:\(day)T1\(index)3000Z", "SUMMARY:Written here \(index)",
                    "END:VEVENT", "END:VCALENDAR", "",
                ].joined(separator: "\r\n")
                try text.write(toFile: folder + "/kill-new-\(index).ics", atomically: true, encoding: .utf8)
                localFileNames.insert("kill-new-\(index).ics")
                localSubjects.append("Written here \(index)")
            }
        }

        private func editAndDelete() throws {
            for index in 10...12 {
                let name = try file(withSubject: "Event \(index)")
                localFileNames.insert(name)
                let path = folder + "/" + name
                let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(
                    of: "SUMMARY:Event \(index)\r\n", with: "SUMMARY:Edited here \(index)\r\n")
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                localSubjects.append("Edited here \(index)")
            }
            for index in 20...21 {
                try FileManager.default.removeItem(atPath: folder + "/" + (try file(withSubject: "Event \(index)")))
                deletedSubjects.append("Event \(index)")
            }
        }

        /// Starts `graph-ics sync` and SIGKILLs it as soon as the stand-in has received `n` more requests;
        /// returns whether the kill came before the run ended.
        func syncKilled(atRequest n: Int) throws -> Bool {
            let base = standIn.requests.count
            return try syncKilled { _ in standIn.requests.count - base >= n }
        }

        /// Starts `graph-ics sync` and SIGKILLs it `milliseconds` after it started.
        func syncKilled(afterMilliseconds milliseconds: Int) throws -> Bool {
            try syncKilled { $0 >= Double(milliseconds) / 1000 }
        }

        /// Starts `graph-ics sync` and SIGKILLs it as soon as `due` (given the seconds since the start) says so;
        /// returns whether the kill came before the run ended.
        private func syncKilled(when due: (TimeInterval) -> Bool) throws -> Bool {
            let process = try ChildProcess(
                try graphICSPath(), ["sync", folder], environment: graphICSEnvironment(environment), stdout: .null,
                stderr: .null)
            let started = Date()
            let deadline = started.addingTimeInterval(60)
            while process.isRunning, Date() < deadline {
                if due(Date().timeIntervalSince(started)) {
                    process.signal(SIGKILL)
                    break
                }
                usleep(500)
            }
            let exit = try process.wait(timeout: defaultTimeout)
            // Graph finishes what it was given before the next run starts (a request still being served
            // would land in the middle of the rerun: a 412, reported as a conflict, then settled).
            while standIn.server.inFlight > 0, Date() < deadline { usleep(1000) }
            return exit.signal != nil
        }

        /// The subjects of the mailbox's events.
        var subjects: [String] { standIn.events().compactMap { $0["subject"] as? String } }
    }

    /// The killed run makes 21 requests (the delta round; the push's lookups, creates, reads, PATCHes and
    /// DELETEs; a create's change key is in Graph's answer, not read again); every one is a point.
    static let points = Array(1...21)

    @Test("graph-ics sync SIGKILLed while Graph serves a request converges when run again", arguments: points)
    func killedSyncConverges(atRequest n: Int) throws {
        let scenario = try Scenario()
        // Each request waits a little in the stand-in, so the kill lands while Graph is serving it.
        scenario.standIn.networkLatency = .milliseconds(40)
        #expect(try scenario.syncKilled(atRequest: n), "the run ended before request \(n)")
        scenario.standIn.networkLatency = .zero
        let rerun = try scenario.sync()
        #expect(rerun.status == 0, "rerun: \(rerun.out) \(rerun.err)")
        let subjects = scenario.subjects
        let twice = Dictionary(grouping: subjects) { $0 }.filter { $0.value.count > 1 }.keys.sorted()
        #expect(twice.isEmpty, "in Graph twice: \(twice)")
        let uids = scenario.standIn.events().compactMap { $0["iCalUId"] as? String }
        #expect(Set(uids).count == uids.count, "an event is in Graph twice (by UID)")
        for subject in scenario.localSubjects {
            #expect(subjects.contains(subject), "the local edit \"\(subject)\" is not in Graph")
        }
        for subject in scenario.deletedSubjects {
            #expect(!subjects.contains(subject), "deleted here, still in Graph: \(subject)")
        }
        #expect(subjects.count == 40 + 5 - 2)
        let settle = try scenario.sync()
        #expect(settle.status == 0 && !settle.out.contains("pushed"), "the next run: \(settle.out) \(settle.err)")
        let files = try FileManager.default.contentsOfDirectory(atPath: scenario.folder)
        #expect(files.filter { $0.hasSuffix(".ics") }.count == 43, "\(files.sorted())")
        #expect(files.allSatisfy { $0.hasSuffix(".ics") || $0 == "displayname" || $0 == "color" }, "\(files.sorted())")
        // One file per event: no two files hold one summary (the pull's copy of a pushed event, say).
        let summaries = try files.filter { $0.hasSuffix(".ics") }.flatMap { name in
            try String(contentsOfFile: scenario.folder + "/" + name, encoding: .utf8).components(separatedBy: "\r\n")
                .filter { $0.hasPrefix("SUMMARY:") }
        }
        #expect(Set(summaries).count == summaries.count, "two files hold one event")
    }

    /// A first sync of 600 events and 5 files written before it, killed after a delay: from before the first
    /// request, through the pull's files (written in batches), to the push's creates (such a run takes
    /// about 1.2 s here, with other tests running).
    static let delays = [30, 100, 200, 300, 450, 600, 750, 900, 1050, 1200]

    @Test("a first graph-ics sync SIGKILLed after a delay converges when run again", arguments: delays)
    func killedFirstSyncConverges(afterMilliseconds delay: Int) throws {
        let scenario = try Scenario(events: 600, syncedFirst: false)
        // A run that finished before the kill (the last delays, on a fast machine) counts too.
        _ = try scenario.syncKilled(afterMilliseconds: delay)
        let rerun = try scenario.sync()
        #expect(rerun.status == 0, "rerun: \(rerun.out) \(rerun.err)")
        let subjects = scenario.subjects
        #expect(subjects.count == 605 && Set(subjects).count == 605, "\(subjects.count) events in Graph")
        let settle = try scenario.sync()
        #expect(settle.status == 0 && settle.out == "sync: no changes\n", "the next run: \(settle.out) \(settle.err)")
        let files = try FileManager.default.contentsOfDirectory(atPath: scenario.folder)
        #expect(files.filter { $0.hasSuffix(".ics") }.count == 605)
        #expect(files.allSatisfy { $0.hasSuffix(".ics") || $0 == "displayname" || $0 == "color" }, "\(files.sorted())")
    }
}
