import Foundation
import ICalBridge

/// `graph-ics convert`: offline conversion of saved Graph JSON into iCalendar.
struct ConvertCommand: Command {
    static let name = "convert"
    static let abstract = "Convert saved Graph JSON to .ics (offline, no account needed)."
    static let synopsis = [
        "[FILE|-] [--to ics|graph-json] [--tz ZONE] [--as-meeting] [--strict]",
        "[--detail full|limited|busy] [--show-private] [--exclude-declined]",
        "[--exclude-cancelled] [--category C]... [-o FILE|-] [--verbose]",
    ]
    static let discussion = """
        Converts offline between Microsoft Graph JSON and iCalendar. Reads FILE, or standard input
        when FILE is '-' or left out; writes to standard output unless -o names a file. A file is
        written whole or not at all: graph-ics writes a temporary file next to it (next to the file
        a symbolic link points to) and renames it. Devices, FIFOs, sockets and /dev/fd/N are
        written straight through, never replaced.

        The kind of input is read from its content and converted to the other kind:
          Graph JSON ('{' or '['): a calendarView or events response, a single event or an array
            of events, converted to .ics.
          iCalendar (BEGIN:VCALENDAR): converted to the Graph event payloads that 'graph-ics
            import' would create, as {"value": [...]}. Nothing is sent anywhere. Follow-up steps
            (cancel or change one occurrence of a series) appear as "@graph-ics.followUps".
        """
    static let epilogue = """
        Examples:
          graph-ics convert week.json -o week.ics
          graph-ics convert ticket.ics --tz Europe/Berlin
          curl -s … | graph-ics convert - | khal import --batch -

        Exit status: 0 all events converted, 1 some events failed (the others are in the output),
        64 usage (also an output that is the input file), 65 bad input (nothing usable), 66 input
        missing, 73 cannot create output, 74 I/O error, 141 the reader of the output went away.
        """
    static let operands: ValueCompletion? = .file

    /// What `--to` converts into.
    enum Target: String, CaseIterable, Sendable {
        case ics
        case graphJSON = "graph-json"
    }

    struct Options: OptionGroup {
        let output = Option.output
        let target = Option<Target>(
            "--to", value: "KIND", help: "ics or graph-json (the other kind of the input, by default).")
        let zone = Option.zone(
            help: "Your time zone, IANA (Europe/Berlin) or Windows (W. Europe Standard Time). Graph JSON: "
                + "events whose original zone Graph does not know (tzone://Microsoft/Custom, …) are shown in it. "
                + "UTC if absent. iCalendar: all-day events and floating times are placed in it. "
                + FloatingZone.rule)
        let asMeeting = Flag(
            "--as-meeting",
            help: "iCalendar: ORGANIZER and ATTENDEEs become real attendees (importing such events mails "
                + "them). By default they are written into the body.")
        let strict = Flag(
            "--strict",
            help: "iCalendar: refuse a recurrence Graph cannot hold instead of expanding it into single events.")
        let selection = SelectionOptions.Declarations(defaults: .export)
        let verbose = Flag("-v", "--verbose", help: "Say what was converted, and how each TZID was understood.")
    }

    var input: String
    var output: String?
    var target: Target?
    var zone: ResolvedZone?
    var verbose: Bool
    var asMeeting: Bool
    var strict: Bool
    /// Graph JSON to .ics only: which events, and how much of each.
    var selection: EventSelection

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        guard parsed.positionals.count <= 1 else {
            throw UsageError("convert takes one input file, got \(parsed.positionals.count)")
        }
        input = parsed.positionals.first ?? "-"
        output = try parsed[\.output]
        target = try parsed[\.target]
        zone = try parsed[\.zone]
        verbose = parsed[\.verbose]
        asMeeting = parsed[\.asMeeting]
        strict = parsed[\.strict]
        selection = try SelectionOptions(parsed.group(\.selection), defaults: .export).selection
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        if input == "-", terminal.stdinIsTerminal {
            throw UsageError("no input: name a FILE or pipe Graph JSON into 'graph-ics convert -'")
        }
        try refuseOutputThatIsTheInput()
        var data = try InputFile.read(input)
        let inputName = input == "-" ? "<stdin>" : input
        switch InputKind.detect(data, name: input) {
        case .graphJSON:
            if target == .graphJSON {
                throw UsageError("\(inputName) is already Graph JSON; use --to ics or leave --to out")
            }
            return try convertGraphJSON(data, name: inputName, terminal)
        case .iCalendar:
            if target == .ics {
                throw UsageError("\(inputName) is already iCalendar; use --to graph-json or leave --to out")
            }
            if selection != .everything {
                throw UsageError("\(inputName) is iCalendar: --detail and the event filters apply to Graph JSON input")
            }
            return try convertICS(&data, name: inputName, terminal)
        case .unknown:
            throw CommandFailure(
                .badInput,
                "\(inputName): neither Graph JSON (starting with '{' or '[') nor iCalendar (BEGIN:VCALENDAR)"
            )
        }
    }

    /// `convert c.ics -o c.ics` would replace the ticket with its JSON: an output that is the input file
    /// (same device and inode, through any symbolic link, also as standard input or output) is a usage error,
    /// found before anything is read or written. Only a regular file is refused: `/dev/null` may be both.
    func refuseOutputThatIsTheInput() throws(UsageError) {
        let inputIdentity =
            input == "-" ? POSIXFile.identity(ofDescriptor: 0) : POSIXFile.identity(of: input)
        let outputIdentity =
            output == nil || output == "-" ? POSIXFile.identity(ofDescriptor: 1) : output.flatMap(POSIXFile.identity)
        guard let inputIdentity, inputIdentity.isRegular, inputIdentity == outputIdentity else { return }
        let inputName = input == "-" ? "standard input" : input
        let outputName = output.flatMap { $0 == "-" ? nil : "-o " + $0 } ?? "standard output"
        throw UsageError(
            "\(outputName) is the same file as the input (\(inputName)): the conversion would replace it; "
                + "write to another file")
    }

    private func convertGraphJSON(_ data: Data, name: String, _ terminal: Terminal) throws -> ExitStatus {
        let options = ExportOptions(fallbackZone: zone, file: name, selection: selection)
        let sink = try OutputFile(path: output)
        var writer = sink
        let summary: GraphToICS.Summary
        do {
            summary = try GraphToICS.convert(data, options: options, into: &writer)
            if summary.wroteCalendar {
                try sink.commit()
            } else {
                sink.discard()
            }
        } catch {
            sink.discard()
            throw CommandFailure(ExitStatus(for: error), error.description)
        }
        terminal.report(summary.diagnostics)
        let failed = summary.diagnostics.filter { $0.severity == .error }.count
        if verbose || failed > 0 {
            var line = "\(name): \(summary.written) of \(summary.inputEvents) events converted to \(sink.displayName)"
            if !summary.wroteCalendar {
                line = "\(name): no event could be converted; nothing written to \(sink.displayName)"
            }
            if failed > 0 { line += "; \(failed) failed" }
            terminal.note(line)
        }
        if failed > 0 { return summary.written == 0 ? .badInput : .partlyFailed }
        return .ok
    }

    /// Converts iCalendar `data` (let go once read: the calendars hold what they need of it).
    private func convertICS(_ data: inout Data, name: String, _ terminal: Terminal) throws -> ExitStatus {
        let floating = zone.map { FloatingZone(zone: $0, source: FloatingZone.option) } ?? FloatingZone.local()
        var options = ImportOptions(userZone: floating.zone, strict: strict, file: name)
        options.expansionLimit = 500
        // What `import` sends into the default calendar with --on-duplicate skip.
        let settings = ImportSettings(notifiesAttendees: asMeeting)
        let input: ICSInput
        do {
            input = try ICSToGraph.read(data, file: name)
            data = Data()
        } catch {
            throw CommandFailure(ExitStatus(for: error), error.description)
        }
        // The events are planned and written a group at a time (the whole calendar is never held): the output
        // is a temporary file until it is committed, and nothing reaches standard output before the first
        // event does.
        let sink = try OutputFile(path: output)
        var writer = sink
        var json = ImportPlan.JSONWriter()
        let plan: ImportPlan
        let planned: Int
        do {
            (plan, planned) = try ICSToGraph.stream(
                input, options: options, settings: settings, transform: ImportPlan.JSONWriter.encode,
                consume: { encoded throws(ICalBridgeError) in try json.write(encoded, into: &writer) })
        } catch {
            sink.discard()
            throw CommandFailure(ExitStatus(for: error), error.description)
        }
        terminal.report(plan.diagnostics)
        if plan.readsFloatingTimes { terminal.note(floating.note(file: name)) }
        if verbose {
            for (tzid, resolution) in plan.zoneResolutions.sorted(by: { $0.key < $1.key }) {
                terminal.note("TZID \(tzid): \(resolution)")
            }
        }
        let failed = plan.diagnostics.filter { $0.severity == .error }.count
        if planned == 0, failed > 0 {
            sink.discard()
            terminal.note("\(name): no event could be converted; nothing written")
            return .badInput
        }
        do throws(ICalBridgeError) {
            try json.finish(into: &writer)
            try writer.write([0x0A])
            try sink.commit()
        } catch {
            sink.discard()
            throw CommandFailure(ExitStatus(for: error), error.description)
        }
        if verbose || failed > 0 {
            terminal.note(
                "\(name): \(planned) Graph events planned from \(plan.sourceEvents) VEVENTs; \(failed) failed"
            )
        }
        return failed > 0 ? .partlyFailed : .ok
    }
}

/// The two kinds of input graph-ics converts between.
enum InputKind {
    case graphJSON
    case iCalendar
    case unknown

    /// Looks at the first non-blank bytes (after a UTF-8 byte order mark).
    static func detect(_ data: Data, name: String) -> InputKind {
        var bytes = data.prefix(64)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let content = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if let first = content.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return .graphJSON }
        if String(decoding: content.prefix(15), as: UTF8.self).uppercased() == "BEGIN:VCALENDAR" { return .iCalendar }
        let lowered = name.lowercased()
        if lowered.hasSuffix(".json") { return .graphJSON }
        if lowered.hasSuffix(".ics") || lowered.hasSuffix(".ical") { return .iCalendar }
        return .unknown
    }
}

/// The zone floating times (neither TZID nor `Z`) and all-day events of an `.ics` are placed in, and why.
/// One rule for `convert` and `import` (docs/time-zones.md, the floating times): `--tz` when given; else, for
/// `import`, the mailbox's zone; else, for `convert` (offline), the zone `TZ` names or the system's zone.
struct FloatingZone {
    /// The rule as both commands' help states it.
    static let rule =
        "Floating times (no TZID) are read in --tz, else (import) the mailbox's zone, else (convert, offline) "
        + "the zone TZ names or the system's; a note names the zone used."
    /// The ``source`` of a zone given with `--tz`.
    static let option = "given with --tz"

    var zone: ResolvedZone
    /// Where the zone came from, for the note: ``option``, `the mailbox's zone`, `the zone TZ names`, ….
    var source: String

    /// `ticket.ics: floating times (no TZID) read in Europe/Berlin, the mailbox's zone; --tz chooses another`.
    func note(file: String) -> String {
        let other = source == Self.option ? "" : "; --tz chooses another"
        return "\(file): floating times (no TZID) read in \(zone.name), \(source)\(other)"
    }

    /// The zone of this machine: `TZ` when it names a zone (IANA or Windows name, `:Europe/Berlin`, or a
    /// path into the zone folder), else the zone `/etc/localtime` links to, else `/etc/timezone`, else UTC.
    static func local(
        environment: [String: String] = ProcessInfo.processInfo.environment, localtime: String = "/etc/localtime",
        timezoneFile: String = "/etc/timezone"
    ) -> FloatingZone {
        var ignored = ""
        if let value = environment["TZ"], !value.isEmpty {
            if let zone = named(value) { return FloatingZone(zone: zone, source: "the zone TZ names") }
            ignored = " (TZ '\(value)' names no zone graph-ics knows)"
        }
        if let link = POSIXFile.linkTarget(localtime), let zone = named(link) {
            return FloatingZone(zone: zone, source: "the system's zone (\(localtime))" + ignored)
        }
        let text = (try? String(contentsOfFile: timezoneFile, encoding: .utf8)) ?? ""
        if let line = text.split(whereSeparator: \.isNewline).first, let zone = named(String(line)) {
            return FloatingZone(zone: zone, source: "the system's zone (\(timezoneFile))" + ignored)
        }
        return FloatingZone(zone: .utc, source: "as the system names no zone" + ignored)
    }

    /// A zone name as `TZ` or a link into the zone folder gives it.
    private static func named(_ text: String) -> ResolvedZone? {
        var name = text.hasPrefix(":") ? String(text.dropFirst()) : text
        if let folder = name.range(of: "zoneinfo/") { name = String(name[folder.upperBound...]) }
        for prefix in ["posix/", "right/"] where name.hasPrefix(prefix) { name = String(name.dropFirst(prefix.count)) }
        guard case .resolved(let zone, _) = ZoneResolver.resolve(name) else { return nil }
        return zone
    }
}
