import Foundation
import GraphICS
import ICalBridge
import Testing

@testable import GraphICSCommands

/// The card and the edit form of `import --interactive`, in-process, on events planned from inline `.ics`.
@Suite struct ImportInteractiveFormTests {
    static let berlin = ResolvedZone.iana("Europe/Berlin") ?? .utc

    /// The first planned event of a calendar holding `lines` as its one VEVENT.
    static func planned(_ lines: [String], settings: ImportSettings = ImportSettings()) throws -> PlannedEvent {
        let text =
            (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//tests//EN", "BEGIN:VEVENT", "DTSTAMP:20261201T100000Z"]
            + lines + ["END:VEVENT", "END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
        let plan = try ICSToGraph.plan(
            Data(text.utf8), options: ImportOptions(userZone: berlin, file: "test.ics"), settings: settings)
        return try #require(plan.events.first)
    }

    static let screening = [
        "UID:wanda-1@tests.example", "DTSTART;TZID=Asia/Shanghai:20230610T103900",
        "DTEND;TZID=Asia/Shanghai:20230610T125800", "SUMMARY:Doraemon", "LOCATION:Orient Cinema",
        "DESCRIPTION:Hall 3\\nRow 5", "ORGANIZER;CN=Wanda Cinemas:mailto:tickets@wanda.example",
        "ATTENDEE;CN=A:mailto:a@example.com", "ATTENDEE;CN=B:mailto:b@example.com",
    ]

    @Test func theCardShowsTheUsersZoneAndTheEventsOwnWhenItsOffsetsDiffer() throws {
        let card = ImportInteractiveCard(
            event: try Self.planned(Self.screening), userZone: Self.berlin, lookup: nil, lookupFailure: "not signed in")
        let lines = card.lines(colour: false)
        #expect(lines[0] == "Doraemon — Wanda Cinemas")
        #expect(lines[1] == "Sat 10 Jun 2023 04:39–06:58 Europe/Berlin (10:39–12:58 in Asia/Shanghai)")
        #expect(lines[2] == "Orient Cinema")
        #expect(lines.contains("Not mailed to anyone (organizer and 2 attendees kept as text)"))
        #expect(lines.last == "Lookup: not looked up (not signed in)")
    }

    @Test func anUnchangedFormChangesNothingAndIsNotEmpty() throws {
        let form = ImportInteractiveForm(event: try Self.planned(Self.screening), userZone: Self.berlin)
        let values = try #require(try form.read(form.text()))
        #expect(form.changes(in: values).isEmpty)
        #expect(values["start"] == "2023-06-10 10:39" && values["zone"] == "Asia/Shanghai")
        #expect(values["reminder"] == "none", "an event without VALARM is imported without a reminder")
        #expect(try form.read("# only comments\n\n# left\n") == nil)
    }

    @Test func editedFieldsAreAppliedAndTheIdentityStays() throws {
        let event = try Self.planned(Self.screening)
        let form = ImportInteractiveForm(event: event, userZone: Self.berlin)
        var text = form.text()
        text = text.replacingOccurrences(of: "reminder: none", with: "reminder: 1h30m")
        text = text.replacingOccurrences(of: "show-as: busy", with: "show-as: Free")
        text = text.replacingOccurrences(of: "all-day: no", with: "all-day: yes")
        text = text.replacingOccurrences(of: "start: 2023-06-10 10:39", with: "start: 2023-06-10")
        text = text.replacingOccurrences(of: "end: 2023-06-10 12:58", with: "end: +1d")
        let values = try #require(try form.read(text))
        #expect(form.changes(in: values) == ["start", "end", "all-day", "reminder", "show-as"])
        let edited = try form.apply(values).payload
        #expect(edited.isAllDay == true)
        #expect(edited.start?.dateTime?.hasPrefix("2023-06-10") == true)
        #expect(
            edited.end?.dateTime?.hasPrefix("2023-06-11") == true,
            "the end is the day after the last day, as add --end: +1d from the start is one day")
        #expect(edited.isReminderOn == true && edited.reminderMinutesBeforeStart == 90)
        #expect(edited.showAs == "free")
        #expect(edited.subject == "Doraemon")
        #expect(edited.singleValueExtendedProperties == event.payload.singleValueExtendedProperties)
        #expect(edited.transactionId == event.payload.transactionId)
    }

    static let holiday = [
        "UID:holiday@tests.example", "DTSTART;VALUE=DATE:20270124", "DTEND;VALUE=DATE:20270126",
        "SUMMARY:Holiday",
    ]

    @Test func anAllDayEventsEndIsTheDayAfterTheLastDayAsAddTakesIt() throws {
        let form = ImportInteractiveForm(event: try Self.planned(Self.holiday), userZone: Self.berlin)
        let text = form.text()
        #expect(text.contains("end: the day after the last day (as add --end)"), "form: \(text)")
        #expect(text.contains("\nstart: 2027-01-24\nend: 2027-01-26\n"), "form: \(text)")
        #expect(try form.read(text).map(form.changes(in:)) == [], "shown as read: an unchanged form changes nothing")

        let values = try #require(
            try form.read(text.replacingOccurrences(of: "end: 2027-01-26", with: "end: 2027-01-25")))
        let edited = try form.apply(values).payload
        #expect(edited.start?.dateTime?.hasPrefix("2027-01-24") == true)
        #expect(edited.end?.dateTime?.hasPrefix("2027-01-25") == true, "end 2027-01-25 is a one-day event")

        let sameDay = try #require(
            try form.read(text.replacingOccurrences(of: "end: 2027-01-26", with: "end: 2027-01-24")))
        #expect(throws: FormError.self) { try form.apply(sameDay) }
        do throws(FormError) {
            _ = try form.apply(sameDay)
        } catch {
            #expect(error.message.contains("(end: 2027-01-25 for one day)"), "message: \(error.message)")
        }
    }

    @Test func aNewStartWithTheEndLeftAsItWasKeepsTheLength() throws {
        let timed = ImportInteractiveForm(event: try Self.planned(Self.screening), userZone: Self.berlin)
        let moved = try #require(
            try timed.read(
                timed.text().replacingOccurrences(of: "start: 2023-06-10 10:39", with: "start: 2023-06-11 09:00")))
        #expect(timed.changes(in: moved) == ["start"])
        let event = try timed.apply(moved).payload
        #expect(
            event.start?.dateTime?.hasPrefix("2023-06-11T09:00") == true, "start: \(String(describing: event.start))")
        #expect(
            event.end?.dateTime?.hasPrefix("2023-06-11T11:19") == true,
            "2 h 19 min as before, not the old end: \(String(describing: event.end))")

        let allDay = ImportInteractiveForm(event: try Self.planned(Self.holiday), userZone: Self.berlin)
        let later = try #require(
            try allDay.read(
                allDay.text().replacingOccurrences(of: "start: 2027-01-24", with: "start: 2027-02-01")))
        let holiday = try allDay.apply(later).payload
        #expect(holiday.start?.dateTime?.hasPrefix("2027-02-01") == true)
        #expect(holiday.end?.dateTime?.hasPrefix("2027-02-03") == true, "two days, as before")
    }

    @Test func invalidValuesAreRefusedWithTheField() throws {
        let form = ImportInteractiveForm(event: try Self.planned(Self.screening), userZone: Self.berlin)
        func error(_ old: String, _ new: String) throws -> String? {
            let values = try #require(try form.read(form.text().replacingOccurrences(of: old, with: new)))
            do throws(FormError) {
                _ = try form.apply(values)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(try error("show-as: busy", "show-as: maybe")?.hasPrefix("show-as: 'maybe' is not one of") == true)
        #expect(try error("zone: Asia/Shanghai", "zone: Mars/Olympus")?.hasPrefix("zone: 'Mars/Olympus'") == true)
        #expect(
            try error("title: Doraemon", "title: ")
                == "title: an event needs a title (empty the whole file to skip the event)")
        #expect(try error("end: 2023-06-10 12:58", "end: 09:00")?.hasPrefix("end '09:00' is before start") == true)
        #expect(throws: FormError.self) { try form.read(form.text().replacingOccurrences(of: "zone:", with: "tz:")) }
    }

    @Test func aSeriesKeepsItsTimes() throws {
        let series = try Self.planned([
            "UID:weekly@tests.example", "DTSTART;TZID=Europe/Berlin:20270104T090000", "DURATION:PT1H",
            "RRULE:FREQ=WEEKLY;COUNT=5", "SUMMARY:Stand-up",
        ])
        let form = ImportInteractiveForm(event: series, userZone: Self.berlin)
        let values = try #require(
            try form.read(
                form.text().replacingOccurrences(of: "start: 2027-01-04 09:00", with: "start: 2027-01-04 10:00")))
        #expect(throws: FormError.self) { try form.apply(values) }
        let card = ImportInteractiveCard(event: series, userZone: Self.berlin, lookup: nil, lookupFailure: nil)
        #expect(card.lines(colour: false).contains { $0.hasPrefix("Repeats weekly, 5 times") })
    }

    @Test func aPlainEditorIsExecedSoThatASignalReachesItAndShellSyntaxIsLeftToTheShell() {
        #expect(ImportInteractiveTerminal.command("vi") == "exec vi \"$@\"")
        #expect(ImportInteractiveTerminal.command("code --wait") == "exec code --wait \"$@\"")
        #expect(ImportInteractiveTerminal.command("LANG=C vim") == "LANG=C vim \"$@\"")
        #expect(ImportInteractiveTerminal.command("vim; echo done") == "vim; echo done \"$@\"")
        #expect(ImportInteractiveTerminal.command("'/opt/my editor/ed'") == "'/opt/my editor/ed' \"$@\"")
    }

    @Test func interactiveAndDryRunDoNotGoTogether() throws {
        #expect(throws: UsageError.self) { try ImportCommand.parse(["-i", "--dry-run", "x.ics"]) }
        #expect(try ImportCommand.parse(["-i", "x.ics"]).interactive)
    }
}
