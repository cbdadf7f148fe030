import Foundation
import GraphICS
import ICalBridge
import Synchronization

/// `graph-ics import`: puts the events of `.ics` files into an Outlook calendar, idempotently and, by
/// default, without mailing anybody. The work is done by `EventImporter` (GraphICS) on the plan of
/// `ICSToGraph` (ICalBridge); this command reads the files, asks for confirmation, and reports.
struct ImportCommand: Command {
    static let name = "import"
    static let abstract = "Import .ics files (tickets, invitations) into Outlook; mails nobody by default."
    static let synopsis = [
        "[FILE|-]... [--calendar NAME|ID] [--user UPN] [--dry-run] [--as-meeting --yes]",
        "[--on-duplicate skip|update|new] [--verify | --undo] [--tz ZONE] [--json] [-i] [-v]",
    ]
    static let discussion = """
        Imports the events of iCalendar files (ticket-style events, meeting invitations, exports of
        other tools) into a calendar. Reads each FILE, or standard input when FILE is '-' or left out; a
        FILE that starts with https:// is fetched (TLS verified, at most 16 MB, redirects followed) in a
        request of its own: the Graph sign-in and Graph's headers never go to that host.

        Safe to run again: graph-ics stores each event's UID (and RECURRENCE-ID) with the event it
        creates and looks it up first, so an event already imported is skipped, and an interrupted
        import can simply be run again. A series is created whole; then its EXDATE occurrences are
        deleted and its RECURRENCE-ID overrides applied. An event with METHOD:CANCEL or
        STATUS:CANCELLED deletes the event imported from it (it never creates one).

        Nobody is mailed by default: ORGANIZER and ATTENDEEs are written into the event's text and
        not sent, because Graph mails every attendee of a meeting it creates, changes or cancels.
        An event found with attendees is neither changed nor cancelled without --as-meeting --yes.

        --verify reads every event back after the import and compares it with the file; --dry-run
        --verify only compares. --undo removes what earlier imports of the same files created (found
        by the stored UID), in the same calendar, and nothing else.
        """
    static let epilogue = """
        The report has one line per event on standard error: created, updated, skipped (already
        imported, or a newer version that --on-duplicate update would apply), cancelled, or failed
        with the reason (and Graph's request-id), naming the file, the event's subject and when it
        starts, in your time zone (--tz, else the mailbox's; a note before the lines names it), as
        agenda shows times (the UID only in --json). A dry run says what would be done: would create,
        would update, would skip, would cancel; without a sign-in it cannot look, and says so.

        Examples:
          graph-ics import ticket.ics
          graph-ics import --calendar Travel train.ics flight.ics --json
          cat ticket.ics | graph-ics import -
          graph-ics import invite.ics --as-meeting --yes
          graph-ics import https://tickets.example/order/123/ticket.ics --verify
          graph-ics import --dry-run --verify train.ics
          graph-ics import --undo train.ics flight.ics

        Exit status: 0 every event imported (or skipped), 1 some events failed (the others were
        imported) or --verify found a mismatch, 64 usage (also --as-meeting without confirmation),
        65 nothing usable in the input, 66 input missing (also a URL that cannot be fetched), 69
        Graph unavailable, 75 temporary failure, 77 not signed in or no permission.
        """
    static let operands: ValueCompletion? = .file

    struct Options: OptionGroup {
        let calendar = Option.calendar(
            help: "Import into this calendar (see 'graph-ics calendars'); the default calendar otherwise."
        ).refusingEmpty("--calendar needs a calendar name or id")
        let dryRun = Flag(
            "--dry-run",
            help: "Change nothing: print the Graph payloads that would be sent, as {\"value\": [...]} (like "
                + "'convert --to graph-json'), and, when signed in, look up what was imported before and say per "
                + "event: would create, would update, would skip, would cancel. With --json, print that report "
                + "instead of the payloads.")
        let asMeeting = Flag(
            "--as-meeting",
            help: "Send the attendees: Graph mails each an invitation (and a cancellation for METHOD:CANCEL). "
                + "Lists who would be invited and needs --yes, or 'yes' typed at the prompt when standard input "
                + "is a terminal.")
        let yes = Flag("-y", "--yes", help: "Confirm --as-meeting without asking.")
        let onDuplicate = Option<ImportSettings.DuplicatePolicy>(
            "--on-duplicate", value: "P",
            help: "For an event imported before: skip leaves it alone; update changes it when the file's "
                + "SEQUENCE (or, with the same SEQUENCE, its DTSTAMP) is newer than the imported one; new creates "
                + "another copy."
        ).defaulting(to: .skip)
        let zone = Option.zone(
            help: "Your time zone (IANA or Windows name) for floating times and all-day events; the mailbox's "
                + "time zone otherwise. " + FloatingZone.rule)
        let verify = Flag(
            "--verify",
            help: "After importing, read every event back from Graph and compare start and end (all-day dates), "
                + "subject, location and a series' occurrences in its first year with the file: ok, missing, "
                + "outdated (file newer) or different: …; exit status 1 on any mismatch. With --dry-run, only "
                + "compare, importing nothing.")
        let undo = Flag(
            "--undo",
            help: "Remove what earlier imports of these files created in the calendar (found by the UID graph-ics "
                + "stored), and nothing else; a meeting whose deletion mails its attendees only with --as-meeting "
                + "--yes. With --dry-run, say what would be removed.")
        let json = Flag("--json", help: "Print the report as JSON on standard output.")
        let interactive = Flag("-i", "--interactive", help: ImportInteractive.help)
        let connection = ConnectionOptions.Declarations()
    }

    var inputs: [String]
    var calendar: String?
    var dryRun: Bool
    var asMeeting: Bool
    var confirmed: Bool
    var json: Bool
    var verify: Bool
    var undo: Bool
    var interactive: Bool
    var onDuplicate: ImportSettings.DuplicatePolicy
    var zone: ResolvedZone?
    var connection: ConnectionOptions

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        inputs = parsed.positionals.isEmpty ? ["-"] : parsed.positionals
        guard inputs.filter({ $0 == "-" }).count <= 1 else {
            throw UsageError("standard input ('-') can be read only once")
        }
        calendar = try parsed[\.calendar]
        dryRun = parsed[\.dryRun]
        asMeeting = parsed[\.asMeeting]
        confirmed = parsed[\.yes]
        json = parsed[\.json]
        verify = parsed[\.verify]
        undo = parsed[\.undo]
        guard !(verify && undo) else {
            throw UsageError("--verify and --undo cannot be combined: run one, then the other")
        }
        interactive = try ImportInteractive.checked(parsed[\.interactive], dryRun: dryRun)
        guard !(interactive && undo) else {
            throw UsageError("--interactive and --undo cannot be combined: --undo removes what an import created")
        }
        onDuplicate = try parsed[\.onDuplicate]
        zone = try parsed[\.zone]
        connection = try ConnectionOptions(parsed.group(\.connection))
    }

    /// One input file, read.
    struct Input {
        var name: String
        var data: Data
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        if inputs.contains("-"), terminal.stdinIsTerminal {
            throw UsageError("no input: name a FILE or pipe iCalendar into 'graph-ics import -'")
        }
        let console = interactive ? try ImportInteractiveTerminal.opened() : nil
        var (readable, failures, worstInputStatus) = readInputs(terminal)
        guard !readable.isEmpty else { return worstInputStatus ?? .inputMissing }
        if undo { return try self.undo(readable, earlierFailures: failures, terminal) }

        // --as-meeting without a way to confirm: say who would be invited, send nothing, touch no network.
        let needsConfirmation = asMeeting && !confirmed && !dryRun
        let canPrompt = terminal.stdinIsTerminal && !inputs.contains("-")
        if needsConfirmation && !canPrompt {
            let planned = plan(
                readable, zone: zone ?? .utc, ImportSettings(notifiesAttendees: asMeeting), terminal, quiet: true)
            listInvitations(planned.items, terminal)
            terminal.error(
                "--as-meeting makes Graph mail the attendees; nothing was imported. Add --yes to confirm, or"
                    + " leave out --as-meeting to import without inviting anybody.")
            return .usage
        }

        // A dry run with --tz and no --calendar needs no account at all: it looks duplicates up only when
        // signed in.
        let session: Session? =
            dryRun && !verify && zone != nil && calendar == nil
            ? try? Session.open(connection, need: .read, terminal: terminal)
            : try Session.open(connection, need: dryRun ? .read : .write, terminal: terminal)
        let userZone = try session?.mailboxZone(override: zone, terminal: terminal) ?? zone ?? .utc
        let calendarID = try session.flatMap {
            try CalendarChoice.nonDefaultID(for: $0.calendar(calendar), in: $0.client)
        }
        let settings = ImportSettings(calendarID: calendarID, onDuplicate: onDuplicate, notifiesAttendees: asMeeting)
        if dryRun, !verify, !asMeeting, session == nil {
            return try streamedDryRun(
                &readable, earlierFailures: failures, worstInputStatus: worstInputStatus, zone: userZone, settings,
                terminal)
        }
        let planned = plan(readable, zone: userZone, settings, terminal, quiet: false)
        failures += planned.failures
        guard !planned.items.isEmpty else {
            terminal.note("nothing to import: no usable event in the input")
            return worstInputStatus == .inputMissing && planned.failures.isEmpty ? .inputMissing : .badInput
        }

        if asMeeting {
            let mailsSomeone = listInvitations(Self.written(planned.items, session), terminal)
            if needsConfirmation && mailsSomeone {
                terminal.err("Type 'yes' to import these events as meetings and mail the invitations:")
                guard readLine()?.trimmingCharacters(in: .whitespaces).lowercased() == "yes" else {
                    terminal.error("not confirmed; nothing was imported")
                    return .usage
                }
            }
        }

        if dryRun, verify, let session {
            return try verifyOnly(planned.items, earlierFailures: failures, session, userZone, terminal)
        }
        if dryRun {
            return try dryRun(
                planned.items, earlierFailures: failures, files: readable.count, session, userZone, terminal)
        }
        guard let session else { return .usage }
        if let console {
            return try ImportInteractive(terminal: console, userZone: userZone, json: json).run(
                planned.items, earlierFailures: failures, files: readable.count, session: session, output: terminal)
        }
        return try send(planned.items, earlierFailures: failures, files: readable.count, session, userZone, terminal)
    }

    /// Says once, before the per-event lines, which zone their times are in: the user's, as agenda and the
    /// `-i` card show them, not each file's own.
    static func noteTimes(in zone: ResolvedZone, _ terminal: Terminal) {
        terminal.note("times are in \(zone.name), your time zone (--tz changes it)")
    }

    /// Reads every input; the ones that cannot be read are reported and become failed results.
    private func readInputs(_ terminal: Terminal) -> (
        readable: [Input], failures: [ImportResult], worstStatus: ExitStatus?
    ) {
        var failures: [ImportResult] = []
        var worstStatus: ExitStatus?
        var readable: [Input] = []
        for path in inputs {
            do {
                readable.append(Input(name: path == "-" ? "<stdin>" : path, data: try ImportSource.read(path)))
            } catch {
                terminal.error(error.message)
                worstStatus = worstStatus ?? error.status
                failures.append(ImportResult(file: path, uid: "", action: .failed, error: error.message))
            }
        }
        return (readable, failures, worstStatus)
    }

    /// `--dry-run`: the payloads on standard output, as `convert --to graph-json` prints them (or, with
    /// `--json`, the report), and, when signed in, what the import would do with each event on standard error.
    private func dryRun(
        _ items: [ImportItem], earlierFailures failures: [ImportResult], files: Int, _ session: Session?,
        _ userZone: ResolvedZone, _ terminal: Terminal
    ) throws -> ExitStatus {
        let preview = lookUp(items, session, userZone)
        let report = ImportReport(
            results: failures
                + (preview.results ?? items.map { Self.unlooked($0, reason: preview.reason, zone: userZone) }),
            isDryRun: true)
        if json {
            var data = try report.jsonData()
            data.append(0x0A)
            terminal.out(String(decoding: data, as: UTF8.self))
        } else {
            try printPayloads(items, terminal)
        }
        if let results = preview.results {
            if !results.isEmpty { Self.noteTimes(in: userZone, terminal) }
            for result in results { terminal.err(result.line) }
            terminal.note("dry run: \(files) file(s): \(report.summary); nothing was sent to Graph")
        } else {
            terminal.note(
                "dry run: \(items.count) event(s) planned; graph-ics did not look for events imported before"
                    + " (\(preview.reason)), so some may be skipped; nothing was sent to Graph")
        }
        return report.count(.failed) > 0 ? .partlyFailed : .ok
    }

    /// What the import would do with `items`, when a session can look; otherwise why it did not look.
    private func lookUp(
        _ items: [ImportItem], _ session: Session?, _ zone: ResolvedZone
    ) -> (results: [ImportResult]?, reason: String) {
        guard let session else { return (nil, "not signed in") }
        do {
            return (try EventImporter(client: session.client, displayZone: zone).preview(items), "")
        } catch {
            return (nil, FetchFailure.failure(error)?.message ?? "\(error)")
        }
    }

    /// An event of a dry run that was not looked up, for `--json`: what the plan does with it.
    private static func unlooked(_ item: ImportItem, reason: String, zone: ResolvedZone) -> ImportResult {
        let event = item.event
        var result = ImportResult(
            file: item.file, uid: event.sourceUID, recurrenceID: event.recurrenceID, subject: event.payload.subject,
            action: EventImporter.isCancellation(event) ? .cancelled : .created,
            note: "not looked up: \(reason)", when: EventLabel.when(event.payload, in: zone))
        result.isPreview = true
        return result
    }

    /// The payloads on standard output, as `convert --to graph-json` prints them.
    private func printPayloads(_ items: [ImportItem], _ terminal: Terminal) throws {
        var plan = ImportPlan()
        plan.events = items.map(\.event)
        do {
            var data = try plan.jsonData()
            data.append(0x0A)
            terminal.out(String(decoding: data, as: UTF8.self))
        } catch {
            throw CommandFailure(.badInput, error.description)
        }
    }

    /// Imports `items` into Graph, reporting each result as it is final, then the summary.
    private func send(
        _ items: [ImportItem], earlierFailures failures: [ImportResult], files: Int, _ session: Session,
        _ userZone: ResolvedZone, _ terminal: Terminal
    ) throws -> ExitStatus {
        let created = CreatedCount()
        Interruption.describeProgress {
            "interrupted: \(created.value.load(ordering: .relaxed)) of \(items.count) event(s) created so far; run the"
                + " same import again to finish the rest (nothing is created twice)"
        }
        Self.noteTimes(in: userZone, terminal)
        let report = EventImporter(client: session.client, displayZone: userZone).run(items) { result in
            if result.action == .created { created.value.add(1, ordering: .relaxed) }
            terminal.err(result.line)
        }
        var all = report
        all.results = failures + report.results
        terminal.note("\(files) file(s): \(all.summary)")
        let verified = report.stoppedBy == nil && verify ? try self.verify(items, session, userZone, terminal) : nil
        if json {
            var data = try all.jsonData(verification: verified)
            data.append(0x0A)
            terminal.out(String(decoding: data, as: UTF8.self))
        }
        if let stopped = report.stoppedBy {
            let failure = FetchFailure.failure(stopped) ?? CommandFailure(.unavailable, "\(stopped)")
            terminal.error(failure.message + " Run the same import again to continue; nothing is duplicated.")
            return failure.status
        }
        let mismatch = verified?.contains { $0.outcome != .ok } ?? false
        return all.count(.failed) > 0 || mismatch ? .partlyFailed : .ok
    }

    /// The events of every file, with the diagnostics printed and the events that failed as results.
    func plan(
        _ inputs: [Input], zone: ResolvedZone, _ settings: ImportSettings, _ terminal: Terminal, quiet: Bool
    ) -> (items: [ImportItem], failures: [ImportResult]) {
        var items: [ImportItem] = []
        var failures: [ImportResult] = []
        for input in inputs {
            let options = ImportOptions(userZone: zone, file: input.name)
            let plan: ImportPlan
            do {
                plan = try ICSToGraph.plan(input.data, options: options, settings: settings)
            } catch {
                if !quiet { terminal.error(error.description) }
                failures.append(ImportResult(file: input.name, uid: "", action: .failed, error: error.description))
                continue
            }
            failures += planned(plan, of: input, zone: zone, terminal, quiet: quiet)
            items += plan.events.map { ImportItem(file: input.name, event: $0) }
        }
        return (items, failures)
    }

    /// Reports what planning `input` found (unless `quiet`): its diagnostics, the zone of its floating times
    /// and, with `-v`, how each TZID was read; returns its events that failed, as results.
    private func planned(
        _ plan: ImportPlan, of input: Input, zone: ResolvedZone, _ terminal: Terminal, quiet: Bool
    ) -> [ImportResult] {
        if !quiet {
            terminal.report(plan.diagnostics.filter { connection.verbose || !Self.isParserNoise($0) })
            if plan.readsFloatingTimes {
                let source = self.zone == nil ? "the mailbox's zone" : FloatingZone.option
                terminal.note(FloatingZone(zone: zone, source: source).note(file: input.name))
            }
            if connection.verbose {
                for (tzid, resolution) in plan.zoneResolutions.sorted(by: { $0.key < $1.key }) {
                    terminal.note("\(input.name): TZID \(tzid): \(resolution)")
                }
            }
        }
        return plan.diagnostics.filter { $0.severity == .error }.map { diagnostic in
            ImportResult(
                file: input.name, uid: diagnostic.eventID ?? "", subject: diagnostic.subject, action: .failed,
                error: diagnostic.line.map { "line \($0): " + diagnostic.message } ?? diagnostic.message)
        }
    }

    /// `--dry-run` without a sign-in (nothing is looked up): the events of each file are planned and printed
    /// a group at a time, as `convert --to graph-json` prints them (or, with `--json`, their lines of the
    /// report), so that a large calendar is never held whole. Prints and returns what ``dryRun`` would.
    private func streamedDryRun(
        _ inputs: inout [Input], earlierFailures: [ImportResult], worstInputStatus: ExitStatus?, zone: ResolvedZone,
        _ settings: ImportSettings, _ terminal: Terminal
    ) throws -> ExitStatus {
        let reason = "not signed in"
        var failures = earlierFailures
        var planFailures: [ImportResult] = []
        var output = TerminalOutput(terminal: terminal)
        var payloads = ImportPlan.JSONWriter()
        // With --json, the report's lines wait (on disk past a few MB) for the failures, which come first.
        let results: ImportReport.EncodedResults
        do throws(ICalBridgeError) {
            results = try ImportReport.EncodedResults()
        } catch {
            throw CommandFailure(ExitStatus(for: error), error.description)
        }
        var counts: [ImportResult.Action: Int] = [:]
        var planned = 0
        for index in inputs.indices {
            let input = inputs[index]
            let file = input.name
            let options = ImportOptions(userZone: zone, file: file)
            do {
                let read = try ICSToGraph.read(input.data, file: file)
                inputs[index].data = Data()
                let (plan, count) = try ICSToGraph.stream(
                    read, options: options, settings: settings,
                    transform: { events -> Result<([UInt8], [ImportResult.Action: Int]), ICalBridgeError> in
                        guard json else { return ImportPlan.JSONWriter.encode(events).map { ($0, [:]) } }
                        let lines = events.map {
                            Self.unlooked(ImportItem(file: file, event: $0), reason: reason, zone: zone)
                        }
                        var counts: [ImportResult.Action: Int] = [:]
                        for line in lines { counts[line.action, default: 0] += 1 }
                        do {
                            return .success((try ImportReport.encoded(lines), counts))
                        } catch {
                            return .failure(ICalBridgeError(.badInput, "cannot write the report: \(error)"))
                        }
                    },
                    consume: {
                        (part: Result<([UInt8], [ImportResult.Action: Int]), ICalBridgeError>) throws(ICalBridgeError)
                        in
                        if json {
                            let (bytes, partCounts) = try part.get()
                            try results.append(bytes)
                            counts.merge(partCounts, uniquingKeysWith: +)
                        } else {
                            try payloads.write(part.map(\.0), into: &output)
                        }
                    })
                planned += count
                planFailures += self.planned(plan, of: input, zone: zone, terminal, quiet: false)
            } catch {
                terminal.error(error.description)
                planFailures.append(ImportResult(file: file, uid: "", action: .failed, error: error.description))
            }
        }
        failures += planFailures
        guard planned > 0 else {
            terminal.note("nothing to import: no usable event in the input")
            return worstInputStatus == .inputMissing && planFailures.isEmpty ? .inputMissing : .badInput
        }
        if json {
            try ImportReport.writeJSON(
                isDryRun: true, leading: failures, encoded: results, counts: counts, into: &output)
            terminal.out("\n")
        } else {
            do throws(ICalBridgeError) {
                try payloads.finish(into: &output)
            } catch {
                throw CommandFailure(.badInput, error.description)
            }
            terminal.out("\n")
        }
        terminal.note(
            "dry run: \(planned) event(s) planned; graph-ics did not look for events imported before"
                + " (\(reason)), so some may be skipped; nothing was sent to Graph")
        return failures.contains { $0.action == .failed } ? .partlyFailed : .ok
    }

    /// Whether `diagnostic` is one of libical's notes about a property it dropped while parsing (`No value for
    /// LOCATION property. Removing entire property`): the event is imported without it, and the user can do
    /// nothing about it, so the import shows it only with `-v`.
    static func isParserNoise(_ diagnostic: Diagnostic) -> Bool {
        guard diagnostic.severity == .warning, diagnostic.message.hasPrefix("libical: ") else { return false }
        return diagnostic.message.contains("Removing entire property") || diagnostic.message.contains("No value for")
    }

    /// The events of `items` the import will create, change or cancel (an event already imported and left
    /// alone mails nobody), as a lookup finds them; all of them when there is no session or the lookup fails.
    private static func written(_ items: [ImportItem], _ session: Session?) -> [ImportItem] {
        guard let session, let preview = try? EventImporter(client: session.client).preview(items),
            preview.count == items.count
        else { return items }
        return zip(items, preview).filter { $0.1.action != .skipped && $0.1.action != .failed }.map(\.0)
    }

    /// Lists, on stderr, who Graph would mail: the attendees of each event to create or change. Returns
    /// whether anybody would be mailed.
    @discardableResult
    private func listInvitations(_ items: [ImportItem], _ terminal: Terminal) -> Bool {
        var lines: [String] = []
        var everyone = Set<String>()
        for item in items {
            let event = item.event
            let cancelling = EventImporter.isCancellation(event)
            let attendees = (event.payload.attendees ?? []).compactMap(\.emailAddress)
            guard !attendees.isEmpty else { continue }
            let names = attendees.map { address -> String in
                let mail = address.address ?? "?"
                everyone.insert(mail.lowercased())
                return address.name.map { "\($0) <\(mail)>" } ?? mail
            }
            let subject = event.payload.subject.map { "\"\($0)\"" } ?? event.sourceUID
            lines.append("  \(subject)\(cancelling ? " (cancellation)" : ""): " + names.joined(separator: ", "))
        }
        guard !lines.isEmpty else {
            terminal.note("--as-meeting: no event to create or change has attendees; nobody will be mailed")
            return false
        }
        terminal.note("--as-meeting: Graph will mail \(everyone.count) attendee(s):")
        for line in lines { terminal.err(line) }
        return true
    }
}

/// How many events an import has created so far, for the message of an interruption.
private final class CreatedCount: Sendable {
    let value = Atomic<Int>(0)
}

/// Standard output as a ``ByteSink`` for JSON written in parts (each part whole events, so whole UTF-8).
private struct TerminalOutput: ByteSink {
    let terminal: Terminal

    mutating func write(_ bytes: UnsafeRawBufferPointer) throws(ICalBridgeError) {
        terminal.out(String(decoding: bytes, as: UTF8.self))
    }
}
