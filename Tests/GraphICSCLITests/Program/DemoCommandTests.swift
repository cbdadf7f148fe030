import Foundation
import ICalBridge
import TestSupport
import Testing

/// `graph-ics demo` end to end: the built binary, in a folder of its own, with HOME elsewhere.
@Suite struct DemoCommandTests {
    /// Every file and folder under `root` with its size and modification time, `skipping` a subfolder.
    static func snapshot(of root: URL, skipping: URL? = nil) -> [String: String] {
        var entries: [String: String] = [:]
        let manager = FileManager.default
        guard let walker = manager.enumerator(atPath: root.path) else { return entries }
        while let relative = walker.nextObject() as? String {
            let path = root.appendingPathComponent(relative).path
            if let skipping, path == skipping.path || path.hasPrefix(skipping.path + "/") { continue }
            let attributes = (try? manager.attributesOfItem(atPath: path)) ?? [:]
            let size = (attributes[.size] as? NSNumber)?.intValue ?? -1
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            entries[relative] = "\(size) \(modified)"
        }
        return entries
    }

    /// The part of the demo's output that follows the `occurrence`th (1-based) appearance of `command`,
    /// up to the next command line.
    static func output(after command: String, occurrence: Int = 1, in text: String) -> String {
        let parts = text.components(separatedBy: command + "\n")
        guard parts.count > occurrence else { return "" }
        return parts[occurrence].components(separatedBy: "\n$ ").first ?? ""
    }

    @Test func theDemoRunsTheJobsWritesOnlyIntoItsFolderAndItsExportsRead() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString)")
        let work = root.appendingPathComponent("work")
        let home = root.appendingPathComponent("home")
        let demo = work.appendingPathComponent("demo")
        defer { try? FileManager.default.removeItem(at: root) }
        for folder in [work, home.appendingPathComponent(".config/graph-ics")] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        try Data("keep me\n".utf8).write(to: work.appendingPathComponent("notes.txt"))
        try Data("{}".utf8).write(to: home.appendingPathComponent(".config/graph-ics/account-real.json"))
        let before = (Self.snapshot(of: work), Self.snapshot(of: home))

        let started = Date()
        let result = try graphICS(
            ["demo", "--dir", "demo"], in: work, environment: ["HOME": home.path, "XDG_CONFIG_HOME": home.path],
            timeout: 110)
        let seconds = Date().timeIntervalSince(started)

        #expect(result.status == 0, "\(result.out)\n\(result.err)")
        #expect(seconds < 110)
        #expect(Self.snapshot(of: work, skipping: demo) == before.0)
        #expect(Self.snapshot(of: home) == before.1)

        // The tutorial shows each command line; whoami and agenda speak of the seeded mailbox.
        for line in [
            "$ graph-ics whoami", "$ graph-ics calendars", "$ graph-ics agenda --week this",
            "$ graph-ics export --week this -o this-week.ics", "$ graph-ics sync calendar",
            "$ graph-ics feed add week --past 7 --future 14",
        ] {
            #expect(result.out.contains(line + "\n"), "no '\(line)' in \(result.out)")
        }
        #expect(Self.output(after: "$ graph-ics whoami", in: result.out).contains("Ana Example <ana@contoso.example>"))
        #expect(Self.output(after: "$ graph-ics agenda --week this", in: result.out).contains("Team stand-up"))
        #expect(
            Self.output(after: "$ graph-ics week --week this --width 100", in: result.out).contains("Team stand"))

        // Both exports read back through graph-ics's own reader; the series one keeps the edits of the series.
        let week = try Data(contentsOf: demo.appendingPathComponent("this-week.ics"))
        let plan = try ICSToGraph.plan(week, options: ImportOptions(file: "this-week.ics"))
        #expect(plan.diagnostics.filter { $0.severity == .error }.isEmpty, "\(plan.diagnostics)")
        #expect(plan.events.count == 9)
        let subjects = plan.events.map { $0.payload.subject ?? "" }
        #expect(subjects.filter { $0.hasPrefix("Team stand-up") }.count == 4)
        let series = try Data(contentsOf: demo.appendingPathComponent("this-week-series.ics"))
        let seriesText = String(decoding: series, as: UTF8.self)
        let seriesPlan = try ICSToGraph.plan(series, options: ImportOptions(file: "this-week-series.ics"))
        #expect(seriesPlan.diagnostics.filter { $0.severity == .error }.isEmpty, "\(seriesPlan.diagnostics)")
        #expect(seriesText.contains("RRULE:") && seriesText.contains("EXDATE") && seriesText.contains("RECURRENCE-ID"))

        // The ticket is created once; the second import finds it and skips it (the reports are on stderr).
        let created = try #require(result.err.range(of: "note: 1 file(s): 1 created, 0 updated, 0 skipped"))
        let skipped = try #require(result.err.range(of: "note: 1 file(s): 0 created, 0 updated, 1 skipped"))
        #expect(created.upperBound < skipped.lowerBound)
        #expect(result.err.contains("(already imported)"))
        // The invitation's dry run sends nothing and mails nobody: no attendees in its payload.
        let dryRun = Self.output(after: "$ graph-ics import --dry-run invitation.ics", in: result.out)
        #expect(dryRun.contains("Board game night") && !dryRun.contains("\"attendees\""), "\(dryRun)")
        #expect(result.err.contains("nothing was sent to Graph"))
        // Each sync brings one side's change to the other.
        #expect(result.out.contains("pulled changed  "))
        #expect(result.out.contains("pushed new  lunch.ics  Lunch with Adele"))

        // The served feed was fetched: its first lines are an iCalendar file.
        #expect(result.out.contains("$ curl -s http://127.0.0.1:"))
        #expect(result.out.contains("BEGIN:VCALENDAR"))
        #expect(FileManager.default.fileExists(atPath: demo.appendingPathComponent("calendar/lunch.ics").path))
    }

    @Test func anEarlierDemosFolderIsStartedAfreshAndOnlyItsOwnFilesAreReplaced() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)

        let first = try graphICS(["demo", "--dir", "again"], in: root, timeout: 110)
        try Data("mine\n".utf8).write(to: root.appendingPathComponent("again/notes.txt"))
        let second = try graphICS(["demo", "--dir", "again"], in: root, timeout: 110)

        #expect(first.status == 0 && second.status == 0, "\(second.err)")
        // A new stand-in, so a first sync again (the earlier pairing and folder were removed), and the ticket
        // is created anew.
        #expect(second.out.contains("sync: pulled 7 (7 new); first sync"), "\(second.out)")
        #expect(second.err.contains("note: 1 file(s): 1 created, 0 updated, 0 skipped"))
        #expect(fileText(root.appendingPathComponent("again/notes.txt").path) == "mine\n")
    }

    @Test func aFolderThatHoldsSomethingElseIsRefused() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data("mine\n".utf8).write(to: root.appendingPathComponent("thesis.tex"))

        let result = try graphICS(["demo", "--dir", root.path])

        #expect(result.status == 73)
        #expect(
            result.errLines == [
                "error: \(root.path) is not empty and is not an earlier demo's folder; give --dir a new or empty folder"
            ])
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["thesis.tex"])
    }

    @Test func aFolderThatCannotBeCreatedIsOneClearSentenceNotFoundationsErrorObject() throws {
        // /sys refuses new folders (EPERM for root, EACCES for others), as a read-only file system would.
        let path = "/sys/graph-ics-demo-\(UUID().uuidString)"
        let result = try graphICS(["demo", "--dir", path])
        #expect(result.status == 73, "stderr: \(result.err)")
        #expect(result.errLines.count == 1, "stderr: \(result.err)")
        #expect(
            result.err.hasPrefix("error: \(path) cannot be used for the demo (")
                && result.err.hasSuffix("); give --dir a folder you can write in\n"), "stderr: \(result.err)")
        #expect(!result.err.contains("Domain") && !result.err.contains("UserInfo"), "stderr: \(result.err)")
    }
}
