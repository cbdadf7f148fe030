import Foundation
import GraphStandIn
import TestSupport
import Testing

/// `graph-ics delete`, `edit` and `respond` against the Graph stand-in: what each sends, whom Graph would
/// mail, what is refused, and the exit statuses.
@Suite struct EventActionCommandTests {
    static let megan = "megan@contoso.example"
    static let ann = "ann@contoso.example"

    /// A mailbox in "W. Europe Standard Time".
    static func account() throws -> StandInAccount {
        let account = try StandInAccount()
        account.standIn.addUser(displayName: "Megan Bowen", mail: megan, mailboxTimeZone: "W. Europe Standard Time")
        return account
    }

    /// An event on 1 December 2026, 09:00–10:00 UTC; with attendees, a meeting Megan organises, or (with
    /// `organizer`) one she was invited to.
    @discardableResult
    static func seed(
        _ standIn: GraphStandIn, subject: String, attendees: [String] = [], organizer: String? = nil, day: Int = 1
    ) throws -> String {
        var json: [String: Any] = [
            "subject": subject,
            "start": ["dateTime": "2026-12-0\(day)T09:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-0\(day)T10:00:00", "timeZone": "UTC"],
            "attendees": (attendees + [organizer == nil ? nil : megan].compactMap { $0 }).map {
                ["type": "required", "emailAddress": ["address": $0, "name": $0]]
            },
        ]
        if let organizer {
            json["isOrganizer"] = false
            json["organizer"] = ["emailAddress": ["name": "Ann Lee", "address": organizer]]
            json["responseStatus"] = ["response": "notResponded", "time": "0001-01-01T00:00:00Z"]
        }
        return try standIn.addEvent(json)
    }

    static func operations(_ standIn: GraphStandIn, _ method: String) -> [String] {
        standIn.operations.filter { $0.method == method }.map(\.path)
    }

    // MARK: display.time

    @Test("add, edit and delete write the event's time on the clock display.time chooses")
    func actionsHonourDisplayTime() throws {
        let account = try Self.account()
        let environment = account.tokenEnvironment()
        let set = try account.run(["config", "set", "display.time", "12h"], environment: environment)
        #expect(set.status == 0, "stderr: \(set.err)")
        let added = try account.run(
            ["add", "--subject", "Dentist", "--start", "2026-12-01 09:30", "--end", "2026-12-01T10:15"],
            environment: environment)
        #expect(added.status == 0, "stderr: \(added.err)")
        #expect(added.err.contains("created 'Dentist', Tuesday 1 December 2026 9:30am–10:15am"), "\(added.err)")
        let id = try #require(added.out.split(separator: "\n").first.map(String.init))
        let edited = try account.run(["edit", id, "--start", "2026-12-02 14:30"], environment: environment)
        #expect(edited.status == 0, "stderr: \(edited.err)")
        #expect(
            edited.err.contains("(Wednesday 2 December 2026 2:30pm; was Tuesday 1 December 2026 9:30am)"),
            "\(edited.err)")
        let deleted = try account.run(["delete", id], environment: environment)
        #expect(deleted.status == 0, "stderr: \(deleted.err)")
        #expect(deleted.err.contains("deleted 'Dentist' (Wednesday 2 December 2026 2:30pm)"), "\(deleted.err)")
    }

    // MARK: delete

    @Test("delete removes an event of one's own without telling anyone, and prints its id")
    func deleteOwnEvent() throws {
        let account = try Self.account()
        let id = try Self.seed(account.standIn, subject: "Dentist")
        let result = try account.run(["delete", id], environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.out == id + "\n")
        #expect(result.err.contains("deleted 'Dentist' (Tuesday 1 December 2026 10:00)"), "stderr: \(result.err)")
        #expect(account.standIn.event(id: id) == nil)
        #expect(account.standIn.sentCancellations.isEmpty)
    }

    @Test("delete refuses a meeting one organises unless --as-meeting --yes, which mails the cancellations")
    func deleteMeeting() throws {
        let account = try Self.account()
        let standIn = account.standIn
        let id = try Self.seed(standIn, subject: "Review", attendees: [Self.ann, "bo@contoso.example"])
        for flags in [[], ["--as-meeting"], ["--yes"]] {
            let refused = try account.run(["delete", id] + flags, environment: account.tokenEnvironment())
            #expect(refused.status == 1, "stderr: \(refused.err)")
            #expect(
                refused.errLines.first
                    == "error: 'Review' (Tuesday 1 December 2026 10:00) is a meeting you organise with 2 attendees "
                    + "(ann@contoso.example, bo@contoso.example): deleting it makes Graph mail them a cancellation; "
                    + "nothing was changed. Give --as-meeting --yes to go ahead (event \(id))")
        }
        #expect(Self.operations(standIn, "DELETE").isEmpty)
        #expect(standIn.event(id: id) != nil)

        let deleted = try account.run(["delete", id, "--as-meeting", "--yes"], environment: account.tokenEnvironment())
        #expect(deleted.status == 0, "stderr: \(deleted.err)")
        #expect(deleted.err.contains("Graph will mail a cancellation of 'Review'"), "stderr: \(deleted.err)")
        #expect(standIn.event(id: id) == nil)
        #expect(standIn.sentCancellations.sorted() == [Self.ann, "bo@contoso.example"])
    }

    @Test("delete of a meeting one was invited to says what it does and mails nobody")
    func deleteAsAttendee() throws {
        let account = try Self.account()
        let id = try Self.seed(account.standIn, subject: "All hands", organizer: Self.ann)
        let result = try account.run(["delete", id], environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(
            result.err.contains(
                "you are an attendee of 'All hands' (Tuesday 1 December 2026 10:00): deleting it removes it from your "
                    + "calendar only; Graph does not tell the organizer (Ann Lee <ann@contoso.example>)"),
            "stderr: \(result.err)")
        #expect(account.standIn.event(id: id) == nil)
        #expect(account.standIn.sentCancellations.isEmpty)
    }

    @Test("an unknown id is exit 66; with one that exists, that one is deleted and the exit is 1")
    func deleteUnknown() throws {
        let account = try Self.account()
        let id = try Self.seed(account.standIn, subject: "Dentist")
        let unknown = try account.run(["delete", "AAMkNoSuchEvent="], environment: account.tokenEnvironment())
        #expect(unknown.status == 66, "stderr: \(unknown.err)")
        #expect(
            unknown.errLines == [
                "error: no event AAMkNoSuchEvent= in this mailbox (Graph answered 404); nothing deleted"
            ])
        let mixed = try account.run(["delete", "AAMkNoSuchEvent=", id], environment: account.tokenEnvironment())
        #expect(mixed.status == 1, "stderr: \(mixed.err)")
        #expect(account.standIn.event(id: id) == nil)
    }

    @Test("delete --search lists the matches of the range and deletes them only with --yes off a terminal")
    func deleteSearch() throws {
        let account = try Self.account()
        let standIn = account.standIn
        let first = try Self.seed(standIn, subject: "Dentist check-up", day: 1)
        let second = try Self.seed(standIn, subject: "dentist again", day: 3)
        let other = try Self.seed(standIn, subject: "Lunch", day: 2)
        let outside = try Self.seed(standIn, subject: "Dentist", day: 9)
        let range = ["--search", "DENTIST", "--from", "2026-12-01", "--to", "+7d"]
        let asked = try account.run(["delete"] + range, environment: account.tokenEnvironment())
        #expect(asked.status == 64, "stderr: \(asked.err)")
        #expect(asked.err.contains("note: 2 events from 2026-12-01 – 2026-12-07 (Europe/Berlin) match 'DENTIST':"))
        #expect(asked.err.contains("Dentist check-up  (\(first))") && asked.err.contains("dentist again  (\(second))"))
        #expect(asked.err.contains("not deleting these 2 events without --yes"), "stderr: \(asked.err)")
        #expect(Self.operations(standIn, "DELETE").isEmpty)

        // -y is --yes, as for import and sync.
        let deleted = try account.run(["delete"] + range + ["-y"], environment: account.tokenEnvironment())
        #expect(deleted.status == 0, "stderr: \(deleted.err)")
        #expect(deleted.out == first + "\n" + second + "\n")
        #expect(standIn.event(id: first) == nil && standIn.event(id: second) == nil)
        #expect(standIn.event(id: other) != nil && standIn.event(id: outside) != nil)

        let none = try account.run(["delete"] + range + ["--yes"], environment: account.tokenEnvironment())
        #expect(none.status == 66, "stderr: \(none.err)")
    }

    // MARK: edit

    @Test("edit --start moves an event and keeps its length; --subject and --location change only those")
    func editOwnEvent() throws {
        let account = try Self.account()
        let standIn = account.standIn
        let id = try Self.seed(standIn, subject: "Dentist")
        let result = try account.run(
            ["edit", id, "--start", "2026-12-02 14:30", "--subject", "Dentist (moved)", "--location", "Praxis 2"],
            environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.out == id + "\n")
        #expect(
            result.err.contains(
                "changed end, location, start, subject of 'Dentist (moved)' (Wednesday 2 December 2026 14:30; was "
                    + "Tuesday 1 December 2026 10:00)"),
            "the note names the new time: \(result.err)")
        let patch = try #require(standIn.operations.first { $0.method == "PATCH" }?.jsonBody as? [String: Any])
        #expect(Set(patch.keys) == ["subject", "location", "start", "end"])
        #expect((patch["start"] as? [String: Any])?["timeZone"] as? String == "W. Europe Standard Time")
        let stored = try #require(standIn.event(id: id))
        #expect((stored["start"] as? [String: Any])?["dateTime"] as? String == "2026-12-02T13:30:00.0000000")
        #expect((stored["end"] as? [String: Any])?["dateTime"] as? String == "2026-12-02T14:30:00.0000000")
        #expect(stored["subject"] as? String == "Dentist (moved)")
        #expect(standIn.sentUpdates.isEmpty)

        let longer = try account.run(["edit", id, "--duration", "90"], environment: account.tokenEnvironment())
        #expect(longer.status == 0, "stderr: \(longer.err)")
        let after = try #require(standIn.event(id: id))
        #expect((after["start"] as? [String: Any])?["dateTime"] as? String == "2026-12-02T13:30:00.0000000")
        #expect((after["end"] as? [String: Any])?["dateTime"] as? String == "2026-12-02T15:00:00.0000000")
    }

    @Test("edit --end before the event's start says so with the start in the mailbox's zone, and sends nothing")
    func editEndBeforeStart() throws {
        let account = try Self.account()
        let id = try Self.seed(account.standIn, subject: "Dentist")
        let result = try account.run(["edit", id, "--end", "08:00"], environment: account.tokenEnvironment())
        #expect(result.status == 64, "stderr: \(result.err)")
        #expect(
            result.errLines.first?.hasPrefix("error: --end 08:00 is before the start, Tuesday 1 December 2026 10:00 in")
                == true, "stderr: \(result.err)")
        #expect(!result.err.contains("clocks change") && !result.err.contains("09:00:00Z"), "stderr: \(result.err)")
        #expect(Self.operations(account.standIn, "PATCH").isEmpty)
    }

    @Test("edit refuses a meeting one organises unless --as-meeting --yes, which mails the attendees an update")
    func editMeeting() throws {
        let account = try Self.account()
        let standIn = account.standIn
        let id = try Self.seed(standIn, subject: "Review", attendees: [Self.ann])
        let refused = try account.run(["edit", id, "--subject", "Review 2"], environment: account.tokenEnvironment())
        #expect(refused.status == 1, "stderr: \(refused.err)")
        #expect(
            refused.errLines.first?.contains("changing it makes Graph mail them an update; nothing was changed") == true
        )
        #expect(Self.operations(standIn, "PATCH").isEmpty)

        let changed = try account.run(
            ["edit", id, "--subject", "Review 2", "--as-meeting", "-y"], environment: account.tokenEnvironment())
        #expect(changed.status == 0, "stderr: \(changed.err)")
        #expect(changed.err.contains("Graph will mail an update of 'Review'"), "stderr: \(changed.err)")
        #expect(standIn.sentUpdates == [Self.ann])
        #expect(standIn.event(id: id)?["subject"] as? String == "Review 2")
    }

    @Test("edit --body of an online meeting exits 65 and says why; its subject can still change, the meeting kept")
    func editOnlineMeetingBody() throws {
        let account = try Self.account()
        let standIn = account.standIn
        let joinURL = "https://teams.microsoft.com/l/meetup-join/19%3ameeting_standin%40thread.v2/0"
        let id = try standIn.addEvent([
            "subject": "Planning",
            "start": ["dateTime": "2026-12-01T09:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-01T10:00:00", "timeZone": "UTC"],
            "isOnlineMeeting": true, "onlineMeetingProvider": "teamsForBusiness",
            "onlineMeeting": ["joinUrl": joinURL],
            "body": ["contentType": "html", "content": "<html><body>Agenda<div>Join: \(joinURL)</div></body></html>"],
        ])
        let refused = try account.run(["edit", id, "--body", "New agenda"], environment: account.tokenEnvironment())
        #expect(refused.status == 65, "stderr: \(refused.err)")
        #expect(
            refused.errLines.first
                == "error: 'Planning' (Tuesday 1 December 2026 10:00) is an online meeting: Graph keeps the "
                + "meeting's join details in its body, and a new body without them turns the online meeting off for "
                + "every attendee; nothing was changed. Change the description in Outlook or Teams (event \(id))")
        #expect(Self.operations(standIn, "PATCH").isEmpty)
        #expect(standIn.disabledOnlineMeetings.isEmpty)

        let renamed = try account.run(["edit", id, "--subject", "Planning 2"], environment: account.tokenEnvironment())
        #expect(renamed.status == 0, "stderr: \(renamed.err)")
        let event = try #require(standIn.event(id: id))
        #expect(event["subject"] as? String == "Planning 2")
        #expect(event["isOnlineMeeting"] as? Bool == true)
        #expect((event["onlineMeeting"] as? [String: Any])?["joinUrl"] as? String == joinURL)
        #expect(standIn.disabledOnlineMeetings.isEmpty)
    }

    @Test("edit: an unknown id is 66; nothing to change, two ids or a bad time are usage errors that send nothing")
    func editMistakes() throws {
        let account = try Self.account()
        let unknown = try account.run(
            ["edit", "AAMkNoSuchEvent=", "--subject", "X"], environment: account.tokenEnvironment())
        #expect(unknown.status == 66, "stderr: \(unknown.err)")
        for arguments in [["edit", "A"], ["edit", "A", "B", "--subject", "X"], ["edit", "A", "--start", "soon"]] {
            let result = try account.run(arguments, environment: account.tokenEnvironment())
            #expect(result.status == 64, "\(arguments): \(result.err)")
        }
        #expect(account.standIn.operations.filter { $0.method != "GET" }.isEmpty)
    }

    @Test("edit of a meeting one was invited to changes one's copy, says so, and mails nobody")
    func editAsAttendee() throws {
        let account = try Self.account()
        let id = try Self.seed(account.standIn, subject: "All hands", organizer: Self.ann)
        let result = try account.run(["edit", id, "--location", "Room 4"], environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(
            result.err.contains(
                "you are an attendee of 'All hands' (Tuesday 1 December 2026 10:00): this changes your copy only"),
            "stderr: \(result.err)")
        #expect((account.standIn.event(id: id)?["location"] as? [String: Any])?["displayName"] as? String == "Room 4")
        #expect(account.standIn.sentUpdates.isEmpty)
    }

    @Test("edit of an all-day event takes days: a new --start keeps its length, --end +2d counts from the start")
    func editAllDay() throws {
        let account = try Self.account()
        let standIn = account.standIn
        let id = try standIn.addEvent([
            "subject": "Holiday", "isAllDay": true,
            "start": ["dateTime": "2026-12-24T00:00:00", "timeZone": "W. Europe Standard Time"],
            "end": ["dateTime": "2026-12-27T00:00:00", "timeZone": "W. Europe Standard Time"],
        ])
        let moved = try account.run(["edit", id, "--start", "2026-12-28"], environment: account.tokenEnvironment())
        #expect(moved.status == 0, "stderr: \(moved.err)")
        let patch = try #require(standIn.operations.last { $0.method == "PATCH" }?.jsonBody as? [String: Any])
        #expect((patch["start"] as? [String: Any])?["dateTime"] as? String == "2026-12-28T00:00:00")
        #expect((patch["end"] as? [String: Any])?["dateTime"] as? String == "2026-12-31T00:00:00")
        let shorter = try account.run(["edit", id, "--end", "+2d"], environment: account.tokenEnvironment())
        #expect(shorter.status == 0, "stderr: \(shorter.err)")
        let stored = try #require(standIn.event(id: id))
        #expect((stored["start"] as? [String: Any])?["dateTime"] as? String == "2026-12-28T00:00:00.0000000")
        #expect((stored["end"] as? [String: Any])?["dateTime"] as? String == "2026-12-30T00:00:00.0000000")
        let timed = try account.run(["edit", id, "--start", "10:00"], environment: account.tokenEnvironment())
        #expect(timed.status == 64, "stderr: \(timed.err)")
        #expect(timed.errLines.first == "error: --start '10:00' is not a day: give \(Self.dayForms)")
    }

    static let dayForms =
        "today, tomorrow, yesterday, mon … sun (the next one, today included), +3d, -1w or +1m (days, weeks or "
        + "months from today), or YYYY-MM-DD"

    // MARK: respond

    @Test("respond accept says the organizer will be mailed, then answers with sendResponse true")
    func respondAccept() throws {
        let account = try Self.account()
        let standIn = account.standIn
        let id = try Self.seed(standIn, subject: "All hands", organizer: Self.ann)
        let result = try account.run(
            ["respond", id, "accept", "--comment", "See you there"], environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(
            result.errLines == [
                "note: Graph will mail your answer to Ann Lee <ann@contoso.example> (--no-mail answers without telling them)",
                "note: accepted 'All hands' (Tuesday 1 December 2026 10:00)",
            ])
        let post = try #require(standIn.operations.first { $0.method == "POST" })
        #expect(post.path.hasSuffix("/events/\(id)/accept"))
        #expect(String(decoding: post.body, as: UTF8.self) == #"{"comment":"See you there","sendResponse":true}"#)
        #expect(standIn.sentResponses == [SentResponse(to: Self.ann, response: "accepted", comment: "See you there")])
        #expect((standIn.event(id: id)?["responseStatus"] as? [String: Any])?["response"] as? String == "accepted")
    }

    @Test("respond --no-mail answers tentatively or declines without mailing the organizer")
    func respondWithoutMail() throws {
        let account = try Self.account()
        let standIn = account.standIn
        let id = try Self.seed(standIn, subject: "All hands", organizer: Self.ann)
        for (answer, action, status) in [
            ("tentative", "tentativelyAccept", "tentativelyAccepted"), ("decline", "decline", "declined"),
        ] {
            let result = try account.run(["respond", id, answer, "--no-mail"], environment: account.tokenEnvironment())
            #expect(result.status == 0, "stderr: \(result.err)")
            #expect(result.err.contains("without mailing Ann Lee <ann@contoso.example>"), "stderr: \(result.err)")
            let post = try #require(standIn.operations.last { $0.method == "POST" })
            #expect(post.path.hasSuffix("/\(action)"))
            #expect(String(decoding: post.body, as: UTF8.self) == #"{"sendResponse":false}"#)
            #expect((standIn.event(id: id)?["responseStatus"] as? [String: Any])?["response"] as? String == status)
        }
        #expect(standIn.sentResponses.isEmpty)
    }

    @Test("respond: one's own meeting is 65, an unknown id 66, a wrong answer 64")
    func respondMistakes() throws {
        let account = try Self.account()
        let own = try Self.seed(account.standIn, subject: "Review", attendees: [Self.ann])
        let organiser = try account.run(["respond", own, "accept"], environment: account.tokenEnvironment())
        #expect(organiser.status == 65, "stderr: \(organiser.err)")
        #expect(organiser.errLines.first?.hasPrefix("error: you organise 'Review'") == true)
        let unknown = try account.run(
            ["respond", "AAMkNoSuchEvent=", "accept"], environment: account.tokenEnvironment())
        #expect(unknown.status == 66, "stderr: \(unknown.err)")
        let wrong = try account.run(["respond", own, "maybe"], environment: account.tokenEnvironment())
        #expect(wrong.status == 64)
        #expect(wrong.errLines.first == "error: the answer must be one of accept, tentative, decline, not 'maybe'")
        #expect(account.standIn.sentResponses.isEmpty)
        #expect(account.standIn.operations.filter { $0.method == "POST" }.isEmpty)
    }
}

/// `delete --search` asking on a terminal: standard input is a pseudo-terminal that types the answer.
@Suite struct DeleteConfirmationTests {
    /// Runs the built graph-ics with standard input on a pseudo-terminal (not its controlling terminal) into
    /// which `typed` is written; standard output and error are pipes.
    static func runOnTerminal(_ account: StandInAccount, _ arguments: [String], typed: String) throws -> ProcessResult {
        let child = try ChildProcess(
            try graphICSPath(), arguments, environment: graphICSEnvironment(account.tokenEnvironment()),
            stdin: .terminal)
        child.type(typed)
        let exit: ChildExit
        do {
            exit = try child.wait(timeout: defaultTimeout)
        } catch let error as ChildProcessError where error.timedOut {
            throw ProcessTimedOut(arguments: arguments, seconds: defaultTimeout)
        }
        return ProcessResult(status: exit.status ?? exit.signal ?? 0, stdout: exit.stdout, stderr: exit.stderr)
    }

    @Test("on a terminal, delete --search asks and deletes on 'y'; anything else deletes nothing (exit 0)")
    func asks() throws {
        let account = try EventActionCommandTests.account()
        let standIn = account.standIn
        let id = try EventActionCommandTests.seed(standIn, subject: "Dentist")
        let search = ["delete", "--search", "dentist", "--from", "2026-12-01", "--days", "7"]
        let declined = try Self.runOnTerminal(account, search, typed: "n\n")
        #expect(declined.status == 0, "stderr: \(declined.err)")
        #expect(declined.stdout.isEmpty)
        #expect(declined.err.contains("Delete this event? [y/N] note: nothing deleted"), "stderr: \(declined.err)")
        #expect(standIn.event(id: id) != nil)

        let accepted = try Self.runOnTerminal(account, search, typed: "y\n")
        #expect(accepted.status == 0, "stderr: \(accepted.err)")
        #expect(accepted.out == id + "\n")
        #expect(standIn.event(id: id) == nil)
    }
}
