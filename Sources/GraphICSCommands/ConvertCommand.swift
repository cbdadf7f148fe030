import Foundation
import ICalBridge

/// `graph-ics convert`: offline conversion of saved Graph JSON into iCalendar.
struct ConvertCommand: Command {
    static let name = "convert"
    static let abstract = "Convert saved Graph JSON to .ics (offline, no account needed)."
    static let synopsis = [
        "[FILE|-] [--to ics|graph-json] [--tz ZONE] [--as-meeting] [--strict]",
        "[-o FILE|-] [--verbose]",
    ]
    static let discussion = """
        Converts offline between Microsoft Graph JSON and iCalendar. Reads FILE, or standard input
        when FILE is '-' or left out; writes to standard output unless -o names a file. A file is
        written whole or not at all: graph-ics writes a temporary file next to it and renames it.

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
        64 usage, 65 bad input (nothing usable), 66 input missing, 73 cannot create output, 74 I/O error.
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
                + "iCalendar: floating times and all-day events are placed in it. UTC if absent.")
        let asMeeting = Flag(
            "--as-meeting",
            help: "iCalendar: ORGANIZER and ATTENDEEs become real attendees (importing such events mails "
                + "them). By default they are written into the body.")
        let strict = Flag(
            "--strict",
            help: "iCalendar: refuse a recurrence Graph cannot hold instead of expanding it into single events.")
        let verbose = Flag("-v", "--verbose", help: "Say what was converted, and how each TZID was understood.")
    }

    var input: String
    var output: String?
    var target: Target?
    var zone: ResolvedZone?
    var verbose: Bool
    var asMeeting: Bool
    var strict: Bool

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
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        if input == "-", terminal.stdinIsTerminal {
            throw UsageError("no input: name a FILE or pipe Graph JSON into 'graph-ics convert -'")
        }
        let data = try InputFile.read(input)
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
            return try convertICS(data, name: inputName, terminal)
        case .unknown:
            throw CommandFailure(
                .badInput,
                "\(inputName): neither Graph JSON (starting with '{' or '[') nor iCalendar (BEGIN:VCALENDAR)"
            )
        }
    }

    private func convertGraphJSON(_ data: Data, name: String, _ terminal: Terminal) throws -> ExitStatus {
        let options = ExportOptions(fallbackZone: zone, file: name)
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
            throw CommandFailure(Self.status(for: error.code), error.description)
        }
        Self.report(summary.diagnostics, terminal)
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

    private func convertICS(_ data: Data, name: String, _ terminal: Terminal) throws -> ExitStatus {
        var options = ImportOptions(userZone: zone, strict: strict, file: name)
        options.expansionLimit = 500
        // What `import` sends into the default calendar with --on-duplicate skip.
        let settings = ImportSettings(notifiesAttendees: asMeeting)
        let plan: ImportPlan
        do {
            let planned = try ICSToGraph.planKeepingSource(data, options: options, settings: settings)
            plan = planned.plan
            // The command ends right after writing: libical's trees need not be freed one by one first.
            ProcessEnd.keep(planned.source)
        } catch {
            throw CommandFailure(Self.status(for: error.code), error.description)
        }
        Self.report(plan.diagnostics, terminal)
        if verbose {
            for (tzid, resolution) in plan.zoneResolutions.sorted(by: { $0.key < $1.key }) {
                terminal.note("TZID \(tzid): \(resolution)")
            }
        }
        let failed = plan.diagnostics.filter { $0.severity == .error }.count
        if plan.events.isEmpty, failed > 0 {
            terminal.note("\(name): no event could be converted; nothing written")
            return .badInput
        }
        let sink = try OutputFile(path: output)
        do throws(ICalBridgeError) {
            var writer = sink
            try plan.writeJSON(into: &writer)
            try writer.write([0x0A])
            try sink.commit()
        } catch {
            sink.discard()
            throw CommandFailure(Self.status(for: error.code), error.description)
        }
        // Nor need the planned events be freed one by one before the process ends.
        ProcessEnd.keep(plan.events)
        if verbose || failed > 0 {
            terminal.note(
                "\(name): \(plan.events.count) Graph events planned from \(plan.sourceEvents) VEVENTs; \(failed) failed"
            )
        }
        return failed > 0 ? .partlyFailed : .ok
    }

    static func report(_ diagnostics: [Diagnostic], _ terminal: Terminal) {
        for diagnostic in diagnostics {
            switch diagnostic.severity {
            case .warning: terminal.warning(diagnostic.description)
            case .error: terminal.error(diagnostic.description)
            }
        }
    }

    static func status(for code: ICalBridgeError.Code) -> ExitStatus {
        switch code {
        case .badInput, .unknownTimeZone: return .badInput
        case .cannotCreateOutput: return .cannotCreateOutput
        case .io, .libical: return .ioError
        }
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

/// What a one-shot command leaves for the kernel to take back when the process ends.
enum ProcessEnd {
    /// Written only by the command's own thread (``keep(_:)``), never read: it only holds references.
    nonisolated(unsafe) private static var kept: [Any] = []

    /// Keeps `value` alive until exit: a large plan's thousands of allocations are then never freed one by
    /// one, which would only delay the exit. Only for values the command is done with; call it from the
    /// command's thread.
    static func keep(_ value: Any) {
        kept.append(value)
    }
}

/// Reads a whole input file or standard input.
enum InputFile {
    /// Maximum input size: far above any real calendar, low enough to refuse a wrong file fast.
    static let maximumBytes = 512 << 20

    static func read(_ path: String) throws(CommandFailure) -> Data {
        if path == "-" {
            // Read in pieces and stop past the limit: `… < /dev/zero | graph-ics convert -` must not fill memory.
            var data = Data()
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let count = chunk.withUnsafeMutableBytes { Foundation.read(0, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else {
                    throw CommandFailure(.ioError, "<stdin>: cannot be read (\(POSIXFile.describe(errno)))")
                }
                if count == 0 { return data }
                data.append(contentsOf: chunk[0..<count])
                guard data.count <= maximumBytes else {
                    throw CommandFailure(
                        .badInput, "<stdin>: larger than \(maximumBytes >> 20) MB; refusing to read it")
                }
            }
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandFailure(.inputMissing, "\(path): no such file")
        }
        guard !isDirectory.boolValue else {
            throw CommandFailure(.inputMissing, "\(path): is a directory, not a file")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CommandFailure(.inputMissing, "\(path): cannot be read (\(POSIXFile.describe(errno)))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw CommandFailure(.ioError, "\(path): cannot be read (\(POSIXFile.describe(errno)))")
        }
        let size = Int(status.st_size)
        guard size <= maximumBytes else {
            throw CommandFailure(.badInput, "\(path): larger than \(maximumBytes >> 20) MB; refusing to read it")
        }
        // One read of the known size (plain POSIX: no Foundation buffering, no mapping).
        var data = Data(count: size)
        let failure = data.withUnsafeMutableBytes { POSIXFile.readAll(descriptor, into: $0, at: 0) }
        if let failure {
            throw CommandFailure(.ioError, "\(path): cannot be read (\(POSIXFile.describe(failure)))")
        }
        return data
    }
}
