import Foundation
import GraphICS
import GraphICSMirror
import GraphICSSync
import ICalBridge

/// `graph-ics sync DIR`: keeps a vdir folder (khal, vdirsyncer) and an Outlook calendar in step, both ways.
/// The work is done by `SyncRun` (GraphICSSync); this command resolves the account, calendar, zone and
/// state, asks about conflicts on a terminal, and prints the report.
struct SyncCommand: Command {
    static let name = "sync"
    static let abstract = "Keep a folder of .ics files (khal, vdirsyncer) and a calendar in step, both ways."
    static let synopsis = [
        "DIR [--calendar NAME|ID] [--user UPN] [--past DAYS] [--future DAYS]",
        "[--pull-only | --push-only] [--conflict ask|graph|local] [--allow-mass-delete]",
        "[--as-meeting --yes] [--discard FILE] [--tz ZONE] [--reset] [--dry-run] [--json] [--quiet] [-v]",
    ]
    static let discussion = """
        Keeps the folder DIR (created when missing) and a calendar in step. DIR is a vdir, as khal
        and vdirsyncer read it: one .ics file per event or whole series, named after its UID, and
        the calendar's name and colour in 'displayname' and 'color'. Other files (VTODO items,
        notes) are left alone.

        Pulled: what changed in Outlook since the last run, for the events from --past days ago to
        --future days ahead: new and changed events are written, deleted ones removed. Pushed:
        every .ics file created, changed or deleted in DIR since the last run. A run with nothing
        to do asks Graph one question and writes nothing. Graph's changes are followed for a window
        a month longer than asked; when today has moved past it, the whole window is read again
        (re-anchored), which takes longer, and the summary says "re-read the window".

        A file is deleted only when Outlook deleted its event: an item a round no longer shows is
        asked about (GET, twenty to a $batch), and only a 404 or 410 removes its file. An event
        still there has left the window (moved, past --past, a file of yours for another year):
        its file stays, the first run says "outside window", and it is rewritten only when it
        changes in Outlook. --past and --future bound what is pulled, not what is kept. If Graph
        cannot answer, the file stays and the next run asks again. On a calendar other than the
        default one, the deletion of an event outside the window is found when the window is next
        re-read (at most about a month).

        Conflicts (an item changed on both sides): --conflict ask asks on a terminal (keep mine,
        keep Outlook's, skip), showing what differs, and elsewhere changes neither side and
        reports it (exit 1); graph or local settle it. The losing version's text is kept in the
        conflicts folder, never lost. --discard FILE gives up one file's local changes for
        Outlook's version.

        Nobody is mailed: events are created without attendees, and a change or deletion of an
        event with attendees that you organise (Graph would mail them) is held and reported once
        (later runs count it in the summary, exit 0), until it is run with --as-meeting --yes or
        the file is given to --discard. A conflict settled with "keep mine" for such a meeting
        stays settled while it is held. A run that would delete more than a fifth of the items
        (and more than five) on either side stops before changing anything.

        The state (what the last run saw, per account, calendar and folder) and the conflicts
        folder are in $GRAPH_ICS_STATE_DIR, else $XDG_STATE_HOME/graph-ics, else
        ~/.local/state/graph-ics; never in DIR. Two syncs of one folder never run at once.
        """
    static let epilogue = """
        The report has one line per item on standard output (pulled new, pushed changed, held
        (would mail N attendees), conflict, failed: REASON [request-id], refused: REASON, outside
        window) and a summary line; --quiet prints only problems, --json one JSON document.

        Examples:
          graph-ics sync ~/.calendars/outlook
          graph-ics sync ~/.calendars/work --calendar Work --past 30 --future 180
          graph-ics sync ~/.calendars/outlook --dry-run
          graph-ics sync ~/.calendars/outlook --quiet   (from a timer or cron, every few minutes)

        Exit status: 0 ok (held items included), 1 some items failed, conflicted or were refused,
        or the run would delete too much, 64 usage, 66 no such calendar, 69 Graph unavailable,
        73 the folder cannot be created, 74 I/O error (disk full included), 75 another sync of the
        folder is running, 77 not signed in or no permission.
        """
    static let operands: ValueCompletion? = .file

    /// The longest --past or --future.
    static let maximumDays = 3650

    struct Options: OptionGroup {
        let calendar = Option.calendar(
            help: "Sync this calendar (see 'graph-ics calendars'); the default calendar otherwise."
        ).refusingEmpty("--calendar needs a calendar name or id")
        let past = Defaulted<Int>.days("--past", default: 90, help: "Mirror the events from this many days ago.")
        let future = Defaulted<Int>.days(
            "--future", default: 365, help: "Mirror the events up to this many days ahead.")
        let pullOnly = Flag("--pull-only", help: "Only bring Outlook's changes into DIR; send nothing.")
        let pushOnly = Flag("--push-only", help: "Only send DIR's changes to Outlook; read none of Outlook's.")
        let conflict = Option<SyncOptions.ConflictPolicy>(
            "--conflict", value: "WHO",
            help: "For an item changed on both sides: ask (on a terminal; otherwise report it and change neither "
                + "side), graph (keep Outlook's version), local (keep the file). The other version is kept in the "
                + "conflicts folder."
        ).defaulting(to: .ask)
        let allowMassDelete = Flag(
            "--allow-mass-delete",
            help: "Let this run delete more than a fifth of the items (and more than five) on either side.")
        let asMeeting = Flag(
            "--as-meeting",
            help: "Send attendees, and send changes and deletions of events you organise that have attendees: "
                + "Graph mails them invitations, updates, cancellations. Needs --yes.")
        let yes = Flag("-y", "--yes", help: "Confirm --as-meeting.")
        let zone = Option.zone(
            help: "Your time zone (IANA or Windows name) for floating times and events whose zone Graph does not "
                + "know; the mailbox's time zone otherwise.")
        let reset = Flag(
            "--reset",
            help: "Forget what earlier syncs of DIR recorded and start over; DIR must hold no .ics files.")
        let dryRun = Flag("--dry-run", help: "Print what would be pulled and pushed; change nothing on either side.")
        let json = Flag("--json", help: "Print the report as one JSON document on standard output.")
        let quiet = Flag("-q", "--quiet", help: "Print only problems (failed, conflicting, refused items).")
        let discard = Option<String>(
            "--discard", value: "FILE",
            help: "Give up the local changes of this item file of DIR: it is replaced with Outlook's version, and its "
                + "text is kept in the conflicts folder first.")
        let connection = ConnectionOptions.Declarations()
    }

    var directory: String
    var calendar: String?
    var past: Int
    var future: Int
    var direction: SyncOptions.Direction
    var conflict: SyncOptions.ConflictPolicy
    var allowMassDelete: Bool
    var asMeeting: Bool
    var zone: ResolvedZone?
    var reset: Bool
    var dryRun: Bool
    var json: Bool
    var quiet: Bool
    var discard: String?
    var connection: ConnectionOptions

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        guard let first = parsed.positionals.first else { throw UsageError("sync needs the folder DIR to sync") }
        guard parsed.positionals.count == 1 else {
            throw UsageError("sync takes one folder, not \(parsed.positionals.count)")
        }
        directory = first
        calendar = try parsed[\.calendar]
        past = try parsed[\.past]
        future = try parsed[\.future]
        switch (parsed[\.pullOnly], parsed[\.pushOnly]) {
        case (true, true): throw UsageError("--pull-only and --push-only exclude each other")
        case (true, false): direction = .pullOnly
        case (false, true): direction = .pushOnly
        case (false, false): direction = .both
        }
        conflict = try parsed[\.conflict]
        allowMassDelete = parsed[\.allowMassDelete]
        asMeeting = parsed[\.asMeeting]
        switch (asMeeting, parsed[\.yes]) {
        case (true, false):
            throw UsageError(
                "--as-meeting makes Graph mail the attendees of what this sync sends; add --yes to confirm")
        case (false, true):
            throw UsageError("--yes confirms --as-meeting; to let a sync delete many items, use --allow-mass-delete")
        default: break
        }
        zone = try parsed[\.zone]
        reset = parsed[\.reset]
        dryRun = parsed[\.dryRun]
        json = parsed[\.json]
        quiet = parsed[\.quiet]
        discard = try parsed[\.discard]
        connection = try ConnectionOptions(parsed.group(\.connection))
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        do {
            let report = try sync(terminal)
            print(report, terminal)
            return report.hasProblems ? .partlyFailed : .ok
        } catch let error as SyncStoreError {
            throw CommandFailure(ExitStatus(for: error), error.description)
        } catch let error as MirrorError {
            throw CommandFailure(ExitStatus(for: error), error.description)
        } catch let error as SQLiteError {
            throw CommandFailure(.ioError, "the sync state cannot be used: \(error.description)")
        }
    }

    /// Opens everything the run needs and runs it.
    private func sync(_ terminal: Terminal) throws -> SyncReport {
        let session = try Session.open(
            connection, need: dryRun || direction == .pullOnly ? .read : .write, terminal: terminal)
        let (folder, stateDirectory, scratch) = try places(ProcessInfo.processInfo.environment)
        defer { scratch?.remove() }
        if reset, let item = try folder.scan().first {
            throw UsageError(
                "--reset starts over from an empty folder, and \(folder.path) holds \(item.name) (and maybe more): "
                    + "move its .ics files away first, so that nothing is sent to Outlook twice")
        }
        try StateDirectory.prepare(stateDirectory)
        let userCache = Self.userCache(session, stateDirectory: stateDirectory)
        let account = try Self.account(session, user: connection.user, cache: userCache)
        let calendarID = try CalendarChoice.nonDefaultID(for: calendar, in: session.client)
        let state = try SyncState(path: (stateDirectory as NSString).appendingPathComponent(SyncState.fileName))
        let pairing = try state.pairing(
            SyncPairingKey(account: account, calendarID: calendarID ?? Self.defaultCalendarKey, folder: folder))
        var options = SyncOptions(window: SyncOptions.window(past: past, future: future))
        options.direction = direction
        options.calendarID = calendarID
        options.conflicts = conflict
        options.allowsMassDeletion = allowMassDelete
        options.dryRun = dryRun
        options.notifiesAttendees = asMeeting
        options.startsOver = reset
        options.zone = try zone(session, account: account, stateDirectory: stateDirectory, terminal)
        if let discard {
            let name = (discard as NSString).lastPathComponent
            guard try state.items(of: pairing).contains(where: { $0.fileName == name }) else {
                throw UsageError(
                    "--discard \(discard): no item file of that name was synced in \(folder.path); it names one of "
                        + "the folder's .ics files")
            }
            options.discarding = [name]
        }
        var run = SyncRun(
            client: session.client, state: state, pairing: pairing, folder: folder, stateDirectory: stateDirectory,
            options: options)
        run.calendarMetadata = { try Self.metadata(of: calendarID, in: session.client) }
        if conflict == .ask, terminal.stdinIsTerminal, terminal.stderrIsTerminal {
            run.resolver = { Self.ask($0, terminal) }
        }
        do {
            return try run.run()
        } catch let error as AuthError where error.code == .tokenRejected {
            userCache?.remove()
            throw error
        } catch let error as GraphError where error.kind == .unauthorized {
            userCache?.remove()
            throw error
        }
    }

    /// Where the user a given token (`GRAPH_ICS_ACCESS_TOKEN`) signs in is remembered; nil for a saved
    /// sign-in, which remembers its user itself.
    static func userCache(_ session: Session, stateDirectory: String) -> SignedInUserCache? {
        guard let given = session.tokens as? StaticTokenSource, let token = try? given.accessToken() else { return nil }
        return SignedInUserCache(stateDirectory: stateDirectory, token: token)
    }

    /// DIR and the state directory; for a dry run of a folder never synced (DIR or the state missing), an
    /// empty scratch folder and state instead, removed at the end, so that it creates neither DIR nor a
    /// pairing.
    private func places(_ environment: [String: String]) throws -> (VdirFolder, String, DryRunScratch?) {
        let stateDirectory = try StateDirectory.path(environment)
        let neverSynced =
            POSIXFile.kind(of: directory) == .absent
            || POSIXFile.kind(of: (stateDirectory as NSString).appendingPathComponent(SyncState.fileName)) == .absent
        guard dryRun, neverSynced, let scratch = try DryRunScratch(needed: true) else {
            return (try Self.openFolder(directory), stateDirectory, nil)
        }
        let folder = POSIXFile.kind(of: directory) == .absent ? scratch.folder : directory
        return (try Self.openFolder(folder), scratch.state, scratch)
    }

    /// The key a pairing with the default calendar is recorded under (`--calendar` not given).
    static let defaultCalendarKey = "default"

    /// DIR, created (with its parents) when missing.
    static func openFolder(_ directory: String) throws -> VdirFolder {
        if POSIXFile.kind(of: directory) == .absent {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw CommandFailure(.cannotCreateOutput, "\(directory): the folder cannot be created")
            }
        }
        return try VdirFolder(path: directory)
    }

    /// The account the pairing is recorded for: `--user`, else the saved sign-in's user name, else Graph's
    /// answer to `GET /me` (recorded in the saved sign-in, or for a given token in `cache`, so that the next
    /// run need not ask).
    static func account(_ session: Session, user: String?, cache: SignedInUserCache? = nil) throws -> String {
        if let user { return user.lowercased() }
        let saved = session.tokens as? RefreshingTokenSource
        if let name = saved?.currentAccount.userName, !name.isEmpty { return name.lowercased() }
        if let name = cache?.fresh() { return name }
        let me = try session.owner()
        guard let name = me.userPrincipalName ?? me.mail, !name.isEmpty else {
            throw CommandFailure(
                .unavailable, "Graph did not say who is signed in (no userPrincipalName from /me); give --user UPN")
        }
        try? saved?.recordUserName(name)
        cache?.store(name.lowercased())
        return name.lowercased()
    }

    /// `--tz`, else the mailbox's zone as a sync of the last day read it, else the mailbox's zone from Graph.
    private func zone(
        _ session: Session, account: String, stateDirectory: String, _ terminal: Terminal
    ) throws -> ResolvedZone {
        if let zone { return zone }
        let cache = MailboxZoneCache(stateDirectory: stateDirectory, account: account)
        if let name = cache.fresh(), case .resolved(let zone, _) = ZoneResolver.resolve(name) { return zone }
        let zone = try session.mailboxZone(override: nil, terminal: terminal)
        cache.store(zone.name)
        return zone
    }

    /// The calendar's name and colour, for the folder's `displayname` and `color`.
    static func metadata(of calendarID: String?, in client: GraphClient) throws -> CalendarMetadata? {
        let calendar = try client.calendars().first { candidate in
            calendarID.map { candidate.id == $0 } ?? (candidate.isDefaultCalendar == true)
        }
        return calendar.map { CalendarMetadata(name: $0.name, hexColor: $0.hexColor) }
    }

    /// Asks on the terminal which version of a conflicting item to keep; `read` reads one answer (nil at the
    /// end of the input, which skips).
    static func ask(
        _ conflict: SyncConflict, _ terminal: Terminal, read: () -> String? = { readLine() }
    ) -> SyncReport.Resolution {
        let name = conflict.subject.map { " \"\($0)\"" } ?? conflict.uid.map { " \($0)" } ?? ""
        terminal.err(
            "conflict: \(conflict.fileName)\(name) was \(conflict.local.rawValue) here and "
                + "\(conflict.graph.rawValue) in Outlook since the last sync.")
        for line in conflict.differences {
            terminal.err("  " + PrintableText.printable(line, lineBreaks: " "))
        }
        let mine =
            conflict.attendeesMailed > 0
            ? "keep [m]ine (a meeting you organise: held until a run with --as-meeting --yes, which mails its "
                + "\(conflict.attendeesMailed) attendee\(conflict.attendeesMailed == 1 ? "" : "s"))"
            : "keep [m]ine"
        while true {
            terminal.err(
                "\(mine.prefix(1).uppercased() + mine.dropFirst()), keep [o]utlook's, or [s]kip (change neither)?")
            guard let answer = read()?.trimmingCharacters(in: .whitespaces).lowercased() else { return .skip }
            switch answer {
            case "m", "mine": return .local
            case "o", "outlook", "outlook's": return .graph
            case "s", "skip": return .skip
            default: continue
            }
        }
    }

    /// The report on standard output: item lines and the summary, only problems with `--quiet`, or the JSON.
    private func print(_ report: SyncReport, _ terminal: Terminal) {
        terminal.report(quiet ? report.diagnostics.filter { $0.severity == .error } : report.diagnostics)
        if let refusal = report.refusal { terminal.error(refusal.description) }
        if json {
            if var data = try? report.jsonData() {
                data.append(0x0A)
                terminal.out(String(decoding: data, as: UTF8.self))
            }
            return
        }
        let items = quiet ? report.problems : report.items
        var text = items.map { $0.line(dryRun: report.isDryRun) + "\n" }.joined()
        if !quiet || report.hasProblems { text += report.summary + "\n" }
        terminal.out(text)
    }
}

/// The scratch folder a dry run of a folder never synced plans in: an empty item folder and a state
/// directory under the system's temporary folder, removed when the run ends.
struct DryRunScratch {
    let root: String
    var folder: String { root + "/folder" }
    var state: String { root + "/state" }

    /// A new scratch folder when `needed`, else nil.
    init?(needed: Bool) throws {
        guard needed else { return nil }
        var template = Array((NSTemporaryDirectory() + "/graph-ics-dry-run-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
            return String(cString: base)
        }
        guard let made else {
            throw CommandFailure(.ioError, "graph-ics cannot create a scratch folder for the dry run")
        }
        root = made
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: root)
    }
}

extension Defaulted where Value == Int {
    /// `--past DAYS` and the like: a whole number of days from 0 to ``SyncCommand/maximumDays``.
    static func days(_ name: String, default value: Int, help: String) -> Defaulted<Int> {
        var spec = OptionSpec(long: name, valueName: "DAYS", help: help)
        spec.defaultValue = String(value)
        let option = Option(spec: spec) { (text: String) throws(UsageError) -> Int in
            guard let days = Int(text), (0...SyncCommand.maximumDays).contains(days) else {
                throw UsageError("\(name) takes a number of days from 0 to \(SyncCommand.maximumDays), not '\(text)'")
            }
            return days
        }
        return Defaulted(option: option, value: value)
    }
}
