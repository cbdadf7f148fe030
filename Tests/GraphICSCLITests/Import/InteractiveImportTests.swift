import Foundation
import GraphStandIn
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `graph-ics import --interactive` through a pseudo-terminal, against the stand-in, with scripted editors
/// (shell scripts set as `VISUAL` that change the form with sed).
@Suite struct InteractiveImportTests {
    static func fixture(_ name: String) -> String {
        Package.fixture("import/" + name).path
    }

    static let train = fixture("train-ticket.ics")
    static let concert = fixture("concert.ics")
    static let cinema = fixture("cinema-ticket.ics")
    static let prompt = "Import? [y]es [n]o [e]dit [a]ll remaining [q]uit "
    static let afterErrorPrompt = "[e]dit again [s]kip this event [q]uit "

    /// A stand-in account whose mailbox is in Berlin, signed in with a token.
    private static func account() throws -> (account: StandInAccount, environment: [String: String]) {
        let account = try StandInAccount()
        account.standIn.addUser(
            displayName: "Alex Example", mail: "alex@contoso.example", mailboxTimeZone: "W. Europe Standard Time")
        return (account, account.tokenEnvironment())
    }

    /// A file with one plain event, `Dentist` on 1 February 2027 at 09:00 UTC.
    private static func dentist(in folder: URL) throws -> String {
        let lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//graph-ics tests//EN", "BEGIN:VEVENT",
            "UID:dentist-2027@tests.example", "DTSTAMP:20261201T100000Z", "DTSTART:20270201T090000Z",
            "DURATION:PT45M", "SUMMARY:Dentist", "END:VEVENT", "END:VCALENDAR",
        ]
        let path = folder.appendingPathComponent("dentist.ics").path
        try Data((lines.joined(separator: "\r\n") + "\r\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A shell script `name` in `folder`, and the editor command that runs it (what the test sets as VISUAL).
    /// Run by `/bin/sh` rather than exec'ed: a process another test spawns while the script is being written
    /// may hold it open for writing, and exec'ing it would then fail with ETXTBSY ("Text file busy").
    private static func script(_ name: String, _ body: String, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data((body + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return "/bin/sh " + path
    }

    private static func subjects(_ standIn: GraphStandIn) -> [String] {
        standIn.events().compactMap { $0["subject"] as? String }.sorted()
    }

    private static func startUTC(_ event: [String: Any]) -> String {
        String(((event["start"] as? [String: Any])?["dateTime"] as? String ?? "").prefix(19))
    }

    private static func endUTC(_ event: [String: Any]) -> String {
        String(((event["end"] as? [String: Any])?["dateTime"] as? String ?? "").prefix(19))
    }

    // MARK: Answers

    @Test func acceptedAndEditedEventsAreCreatedSkippedAndQuitOnesAreNotAndNobodyIsMailed() throws {
        let (account, environment) = try Self.account()
        let standIn = account.standIn
        let dentist = try Self.dentist(in: account.folder)
        let editor = try Self.script(
            "editor.sh",
            "sed -i -e 's/^title: .*/title: Metropolis with Sam/' -e 's/^start: .*/start: 2027-01-22 21:00/' "
                + "-e 's/^end: .*/end: 23:15/' \"$1\"",
            in: account.folder)
        var variables = environment
        variables["VISUAL"] = editor
        variables["NO_COLOR"] = "1"
        let run = try PseudoTerminalRun(
            ["import", "-i", Self.train, Self.concert, Self.cinema, dentist], environment: variables)

        let trainCard = try run.waitFor(Self.prompt)
        #expect(trainCard.contains("Train ES 9126 Brussels-Midi → London St Pancras"))
        #expect(trainCard.contains("Fri 15 Jan 2027 08:56–"))
        #expect(trainCard.contains("Lookup: would create (not imported before)"))
        run.type("y")
        try run.waitFor(Self.prompt)
        run.type("n")
        let cinemaCard = try run.waitFor(Self.prompt)
        #expect(cinemaCard.contains("Kino: Metropolis (1927, restored) – Saal 1 — Babylon Kino"))
        #expect(cinemaCard.contains("Fri 22 Jan 2027 20:15–22:30 Europe/Berlin\n"))
        #expect(cinemaCard.contains("Babylon, Rosa-Luxemburg-Straße 30, 10178 Berlin"))
        #expect(cinemaCard.contains("Not mailed to anyone (organizer and 2 attendees kept as text)"))
        run.type("e")
        try run.waitFor("Dentist")
        try run.waitFor(Self.prompt)
        run.type("q")
        let result = try run.finish()

        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(!run.screenText.contains("\u{1B}["), "NO_COLOR is set, yet the terminal got escape sequences")
        #expect(Self.subjects(standIn) == ["Metropolis with Sam", "Train ES 9126 Brussels-Midi → London St Pancras"])
        let edited = try #require(standIn.events().first { $0["subject"] as? String == "Metropolis with Sam" })
        #expect(Self.startUTC(edited) == "2027-01-22T20:00:00")
        #expect(Self.endUTC(edited) == "2027-01-22T22:15:00")
        #expect((edited["attendees"] as? [Any])?.isEmpty == true)
        #expect(standIn.sentInvitations.isEmpty)
        #expect(result.err.contains("created (as edited: title, start, end)"), "stderr: \(result.err)")
        #expect(result.err.contains("skipped (answered no)"))
        #expect(result.err.contains("skipped (not asked: quit)"))
        #expect(
            result.err.contains("4 file(s): 2 created, 0 updated, 2 skipped, 0 cancelled, 0 failed"),
            "stderr: \(result.err)")

        // A plain import of the same ticket later skips the edited event instead of undoing the edit.
        let again = try account.run(["import", Self.cinema], environment: environment)
        #expect(again.status == 0, "stderr: \(again.err)")
        #expect(again.err.contains("skipped (already imported)"), "stderr: \(again.err)")
        #expect(Self.subjects(standIn).contains("Metropolis with Sam"))
        #expect(standIn.eventCount == 2)
    }

    @Test func anInvalidDateReopensTheFormWithTheErrorAtTheTopAndAPipedTicketIsAskedAboutOnTheTerminal() throws {
        let (account, environment) = try Self.account()
        let standIn = account.standIn
        let reopened = account.folder.appendingPathComponent("reopened-form.txt").path
        let editor = try Self.script(
            "editor.sh",
            """
            if grep -q '^# error: ' "$1"; then
              cp "$1" '\(reopened)'
              sed -i 's/^start: .*/start: 2027-01-22 21:00/' "$1"
            else
              sed -i 's/^start: .*/start: 2027-13-40 21:00/' "$1"
            fi
            """,
            in: account.folder)
        var variables = environment
        variables["VISUAL"] = editor
        let ticket = try Data(contentsOf: URL(fileURLWithPath: Self.cinema))
        let run = try PseudoTerminalRun(["import", "--interactive", "-"], input: .pipe(ticket), environment: variables)

        try run.waitFor(Self.prompt)
        run.type("e")
        let result = try run.finish()

        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(run.screenText.contains("\u{1B}[1m"), "colours are on without NO_COLOR on a terminal")
        let form = try String(contentsOfFile: reopened, encoding: .utf8)
        #expect(form.hasPrefix("# error: start '2027-13-40 21:00' is not a time"), "form: \(form)")
        #expect(form.contains("\nstart: 2027-13-40 21:00\n"), "the reopened form keeps what was typed")
        let events = standIn.events()
        #expect(events.count == 1)
        let event = try #require(events.first)
        #expect(Self.startUTC(event) == "2027-01-22T20:00:00")
        #expect(
            Self.endUTC(event) == "2027-01-22T22:15:00",
            "only the start was edited: the end moves with it and the event keeps its 2 h 15 min")
        #expect(standIn.sentInvitations.isEmpty)
    }

    @Test func anEmptiedFormSkipsAnUnchangedOneImportsTheEventAsItWasAndAllImportsTheRest() throws {
        let (account, environment) = try Self.account()
        let standIn = account.standIn
        let dentist = try Self.dentist(in: account.folder)
        let editor = try Self.script(
            "editor.sh", "if grep -q '^title: Train' \"$1\"; then : > \"$1\"; else touch \"$1\"; fi",
            in: account.folder)
        var variables = environment
        variables["EDITOR"] = editor
        let run = try PseudoTerminalRun(
            ["import", "-i", Self.train, Self.concert, Self.cinema, dentist, "--json"], environment: variables)

        try run.waitFor(Self.prompt)
        run.type("e")
        try run.waitFor(Self.prompt)
        run.type("e")
        try run.waitFor(Self.prompt)
        run.type("a")
        let result = try run.finish()

        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(
            Self.subjects(standIn) == [
                "Concert: Mahler Symphony No. 2 – Berliner Philharmoniker", "Dentist",
                "Kino: Metropolis (1927, restored) – Saal 1",
            ])
        #expect(result.err.contains("skipped (the form was emptied)"), "stderr: \(result.err)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let actions = (report["events"] as? [[String: Any]] ?? []).map { $0["action"] as? String ?? "" }
        #expect(actions.sorted() == ["created", "created", "created", "skipped"])
        #expect(standIn.sentInvitations.isEmpty)
    }

    @Test func theSameErrorTwiceAsksWhetherToEditAgainSkipOrQuit() throws {
        let (account, environment) = try Self.account()
        let standIn = account.standIn
        let dentist = try Self.dentist(in: account.folder)
        let runs = account.folder.appendingPathComponent("editor-runs.txt").path
        let editor = try Self.script(
            "editor.sh", "echo run >> '\(runs)'\nsed -i 's/^start: .*/start: 2027-13-40 21:00/' \"$1\"",
            in: account.folder)
        var variables = environment
        variables["VISUAL"] = editor
        variables["NO_COLOR"] = "1"
        let run = try PseudoTerminalRun(["import", "-i", Self.cinema, Self.concert, dentist], environment: variables)

        try run.waitFor(Self.prompt)
        run.type("e")
        let asked = try run.waitFor(Self.afterErrorPrompt, timeout: 30)
        #expect(asked.contains("The form has the same error again: start '2027-13-40 21:00' is not a time"))
        run.type("e")
        try run.waitFor(Self.afterErrorPrompt, timeout: 30)
        run.type("s")
        try run.waitFor(Self.prompt)
        run.type("e")
        try run.waitFor(Self.afterErrorPrompt, timeout: 30)
        run.type("q")
        let result = try run.finish(timeout: 30)

        #expect(result.status == 0, "stderr: \(result.err)")
        let editorRuns = try String(contentsOfFile: runs, encoding: .utf8).split(separator: "\n").count
        #expect(editorRuns == 5, "twice, once more after 'edit again', then twice for the second event")
        #expect(
            result.err.contains("skipped (the form had an error: start '2027-13-40 21:00' is not a time"),
            "stderr: \(result.err)")
        #expect(result.err.contains("skipped (not asked: quit)"), "stderr: \(result.err)")
        #expect(standIn.eventCount == 0)
    }

    @Test func quittingTheEditorWithoutSavingReturnsToThePromptAndImportsNothing() throws {
        let (account, environment) = try Self.account()
        let standIn = account.standIn
        let editor = try Self.script("editor.sh", "exit 0", in: account.folder)
        var variables = environment
        variables["EDITOR"] = editor
        variables["NO_COLOR"] = "1"
        let run = try PseudoTerminalRun(["import", "-i", Self.cinema], environment: variables)

        try run.waitFor(Self.prompt)
        run.type("e")
        try run.waitFor("The editor quit without saving the form: nothing was imported.", timeout: 30)
        try run.waitFor(Self.prompt)
        #expect(standIn.eventCount == 0, "nothing is imported while the prompt asks again")
        run.type("n")
        let result = try run.finish(timeout: 30)

        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.err.contains("skipped (answered no)"), "stderr: \(result.err)")
        #expect(standIn.eventCount == 0)
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalWhileTheEditorRunsEndsTheEditorAndTheRunSayingWhatWasCreated(signal: Int32) throws {
        let (account, environment) = try Self.account()
        let standIn = account.standIn
        let started = account.folder.appendingPathComponent("editor-pid.txt").path
        let editor = try Self.script(
            "editor.sh", "echo $$ > '\(started).new'\nmv '\(started).new' '\(started)'\nexec sleep 60",
            in: account.folder)
        var variables = environment
        variables["VISUAL"] = editor
        let run = try PseudoTerminalRun(["import", "-i", Self.train, Self.cinema], environment: variables)

        try run.waitFor(Self.prompt)
        run.type("y")
        try run.waitFor(Self.prompt)
        run.type("e")
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: started), Date() < deadline { usleep(20_000) }
        let editorPID = try #require(
            pid_t(
                (try? String(contentsOfFile: started, encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""),
            "the editor did not start")
        kill(run.pid, signal)
        let result = try run.finish(timeout: 20)

        #expect(result.status == 128 + signal, "stderr: \(result.err)")
        #expect(
            result.err.contains(
                "interrupted; nothing half-created. Imported so far: 1 event(s): "
                    + "\"Train ES 9126 Brussels-Midi → London St Pancras\""),
            "stderr: \(result.err)")
        #expect(kill(editorPID, 0) != 0, "the editor was ended with the run")
        #expect(Self.subjects(standIn) == ["Train ES 9126 Brussels-Midi → London St Pancras"])
    }

    // MARK: Ending

    @Test func ctrlCAtThePromptEndsSayingWhatWasCreatedAndLeavesTheRest() throws {
        let (account, environment) = try Self.account()
        let standIn = account.standIn
        let run = try PseudoTerminalRun(
            ["import", "-i", Self.train, Self.concert, Self.cinema], environment: environment)

        try run.waitFor(Self.prompt)
        run.type("y")
        try run.waitFor(Self.prompt)
        run.type("\u{03}")
        let result = try run.finish()

        #expect(result.status == 130, "stderr: \(result.err)")
        #expect(
            result.err.contains(
                "interrupted; nothing half-created. Imported so far: 1 event(s): "
                    + "\"Train ES 9126 Brussels-Midi → London St Pancras\""),
            "stderr: \(result.err)")
        #expect(Self.subjects(standIn) == ["Train ES 9126 Brussels-Midi → London St Pancras"])
    }

    @Test func ctrlCWhileAnEventIsBeingCreatedLetsItFinishThenEnds() throws {
        let (account, environment) = try Self.account()
        let standIn = account.standIn
        let run = try PseudoTerminalRun(["import", "-i", Self.train, Self.concert], environment: environment)

        try run.waitFor(Self.prompt)
        standIn.latency = .milliseconds(1500)
        run.type("y")
        usleep(400_000)
        run.type("\u{03}")
        let result = try run.finish()

        #expect(result.status == 130, "stderr: \(result.err)")
        #expect(
            result.err.contains("\"Train ES 9126 Brussels-Midi → London St Pancras\" 2027-01-15 08:56: created"),
            "stderr: \(result.err)")
        #expect(result.err.contains("Imported so far: 1 event(s)"), "stderr: \(result.err)")
        #expect(Self.subjects(standIn) == ["Train ES 9126 Brussels-Midi → London St Pancras"])
        #expect(!run.screenText.contains("Concert: Mahler"), "no card after the interruption")
    }

    @Test func withoutATerminalItIsAUsageErrorPointingAtDryRunAndNothingIsAsked() throws {
        let (account, environment) = try Self.account()
        let run = try PseudoTerminalRun(["import", "-i", Self.cinema], input: .noTerminal, environment: environment)
        let result = try run.finish()

        #expect(result.status == 64, "stderr: \(result.err)")
        #expect(result.err.contains("--dry-run"), "stderr: \(result.err)")
        #expect(account.standIn.operations.isEmpty)
        #expect(account.standIn.eventCount == 0)
    }
}
