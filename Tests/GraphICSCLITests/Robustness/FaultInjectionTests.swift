import Foundation
import GraphICS
import GraphStandIn
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - A child graph-ics the test controls

/// What a `graph-ics` started by ``SpawnedGraphICS`` left behind.
struct SpawnResult {
    /// The exit status, nil when a signal ended the process.
    var status: Int32?
    /// The signal that ended the process, nil when it exited.
    var signal: Int32?
    var stdout: Data
    var stderr: Data
    /// The child's peak resident memory in KiB: its `VmHWM` sampled every 2 ms while it ran, or `wait4`'s
    /// `ru_maxrss` when that is larger than the test process's own peak (posix_spawn's vfork child inherits
    /// the test process's high-water mark in `ru_maxrss` when it calls exec, so a smaller value may be
    /// the test's rather than the child's).
    var peakMemoryKiB: Int
    /// Wall-clock seconds from the start to the exit.
    var seconds: Double

    var out: String { String(decoding: stdout, as: UTF8.self) }
    var err: String { String(decoding: stderr, as: UTF8.self) }
    var errLines: [String] { err.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
}

/// A `graph-ics` child started through `/bin/sh` (TestSupport's ``ChildProcess``), for what `graphICS(…)`
/// cannot do: signal it while it runs, give it resource limits (`ulimit`), measure its peak memory.
///
/// The child gets every signal at its default disposition and none blocked, as a shell would give it (the
/// test runner's threads block some). Its stdout and stderr go to files, so nothing can fill a pipe.
final class SpawnedGraphICS {
    private let child: ChildProcess
    let arguments: [String]
    private let outputFile: URL
    private let errorFile: URL

    var pid: pid_t { child.pid }

    /// Starts `graph-ics arguments` in `directory` with `environment` added to the test's own (minus any
    /// `GRAPH_ICS_*`); `limits` are shell commands run before it (`ulimit -f 64; trap '' XFSZ`), `stdin` a
    /// file to read standard input from.
    init(
        _ arguments: [String], environment extra: [String: String], in directory: URL, stdin: String = "/dev/null",
        limits: String = ""
    ) throws {
        let binary = try graphICSPath()
        self.arguments = arguments
        let tag = UUID().uuidString
        outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("graph-ics-out-\(tag)")
        errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("graph-ics-err-\(tag)")
        let command = ([binary] + arguments).map(shellQuoted).joined(separator: " ")
        let script =
            "cd \(shellQuoted(directory.path)) || exit 120; \(limits)\n"
            + "exec \(command) < \(shellQuoted(stdin)) > \(shellQuoted(outputFile.path)) 2> \(shellQuoted(errorFile.path))"
        child = try ChildProcess("/bin/sh", ["-c", script], environment: graphICSEnvironment(extra))
        // Linux updates VmHWM lazily, so the resident size at this instant may be above it: take the larger.
        inheritedPeakKiB = max(
            Self.highWaterMarkKiB(of: "self") ?? Int.max, Self.highWaterMarkKiB(of: "self", field: "VmRSS:") ?? 0)
    }

    /// The test process's own peak memory right after the spawn (see ``SpawnResult/peakMemoryKiB``).
    private let inheritedPeakKiB: Int

    /// A file's bytes, read in a loop until its end: procfs files report size 0, and Foundation's
    /// `Data(contentsOf:)` leaks its buffer for an empty file (LeakSanitizer reports it).
    static func contents(of path: String) -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return Data() }
        defer { close(descriptor) }
        var bytes = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    /// `VmHWM` (or another `field`) of `/proc/<process>/status`, in KiB.
    static func highWaterMarkKiB(of process: String, field: String = "VmHWM:") -> Int? {
        let text = String(decoding: contents(of: "/proc/\(process)/status"), as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return nil }
        return line.dropFirst(field.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap {
            Int($0)
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: outputFile)
        try? FileManager.default.removeItem(at: errorFile)
    }

    /// Sends `signal` to the child.
    func send(_ signal: Int32) {
        child.signal(signal)
    }

    /// Waits for the child to end (killing it and throwing after `timeout` seconds).
    func wait(timeout: Double = defaultTimeout) throws -> SpawnResult {
        var sampledPeak = 0
        let pid = child.pid
        let exit: ChildExit
        do {
            exit = try child.wait(timeout: timeout) {
                if let mark = Self.highWaterMarkKiB(of: "\(pid)") { sampledPeak = max(sampledPeak, mark) }
            }
        } catch let error as ChildProcessError where error.timedOut {
            throw ProcessTimedOut(arguments: arguments, seconds: timeout)
        }
        return SpawnResult(
            status: exit.status, signal: exit.signal,
            stdout: Self.contents(of: outputFile.path),
            stderr: Self.contents(of: errorFile.path),
            // No reading at all counts as unbounded, so that a bound cannot pass by accident.
            peakMemoryKiB: exit.maxResidentKiB > inheritedPeakKiB
                ? exit.maxResidentKiB : sampledPeak == 0 ? Int.max : sampledPeak,
            seconds: exit.seconds)
    }
}

/// Polls `condition` every millisecond until it holds or `seconds` pass; returns whether it held.
@discardableResult
func waitUntil(seconds: Double = 20, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(1_000)
    }
    return condition()
}

/// Where a test's output goes, and what must hold of it after a failed run.
struct OutputExpectation {
    var folder: URL
    var name: String
    /// The bytes of the file before the run; nil when there was none.
    var previous: Data?

    var url: URL { folder.appendingPathComponent(name) }

    /// Writes a previous version of the file, as a earlier export would have left it.
    static func existing(in folder: URL, name: String = "week.ics") throws -> OutputExpectation {
        let previous = Data("BEGIN:VCALENDAR\r\nPRODID:previous run\r\nEND:VCALENDAR\r\n".utf8)
        let expectation = OutputExpectation(folder: folder, name: name, previous: previous)
        try previous.write(to: expectation.url)
        return expectation
    }

    /// The file is as it was (byte-equal, or still absent) and no `.NAME.graph-ics-XXXXXX` is left.
    func expectUntouched(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let now = try? Data(contentsOf: url)
        #expect(now == previous, "\(name) was changed by a failed run", sourceLocation: sourceLocation)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.contains(".graph-ics-")
        }
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)", sourceLocation: sourceLocation)
    }
}

/// A failure reported as the CLI contract says: the status, and exactly one `error:` line that is a
/// readable sentence (no crash report, no Swift error dump), nothing on stdout.
func expectOneClearError(
    status: Int32?, stdout: Data, errLines: [String], expected: Int32, mentioning fragments: [String] = [],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(
        status == expected, "exit \(String(describing: status)); stderr: \(errLines)", sourceLocation: sourceLocation)
    #expect(
        stdout.isEmpty, "stdout: \(String(decoding: stdout.prefix(200), as: UTF8.self))", sourceLocation: sourceLocation
    )
    let errors = errLines.filter { $0.hasPrefix("error: ") }
    #expect(errors.count == 1, "stderr: \(errLines)", sourceLocation: sourceLocation)
    let message = errors.first ?? ""
    for fragment in fragments {
        #expect(
            message.contains(fragment), "'\(message)' does not mention '\(fragment)'", sourceLocation: sourceLocation)
    }
    // A sentence that says the same thing twice (a cause repeated in parentheses) is not clear.
    let characters = Array(message)
    var seen = Set<String>()
    var repeated: String?
    for start in stride(from: 0, to: characters.count - 23, by: 1) where repeated == nil {
        let piece = String(characters[start..<(start + 24)])
        if !seen.insert(piece).inserted { repeated = piece }
    }
    #expect(repeated == nil, "'\(message)' repeats '\(repeated ?? "")'", sourceLocation: sourceLocation)
    for dump in ["Fatal error", "Swift/", "GraphError(", "CurlError(", "ICalBridgeError(", "Optional("] {
        #expect(!errLines.joined().contains(dump), "stderr: \(errLines)", sourceLocation: sourceLocation)
    }
}

// MARK: - Faults

/// The network failing under a running export, import or whoami — connections closed mid-answer, garbage,
/// truncated JSON, 500s, answers slower than the timeout, 429 storms — and the disk or the user stopping an
/// export: graph-ics recovers when a retry can, and otherwise stops with one clear sentence and the
/// documented exit status, leaving no partial file, an existing file byte-equal, and nothing an import run
/// again would duplicate.
@Suite struct FaultInjectionTests {
    static let berlinWindows = "W. Europe Standard Time"
    /// Monday 30 November 2026, 00:00 in Berlin: the start of ISO week 2026-W49.
    static let week49 = Date(timeIntervalSince1970: 1_795_993_200)
    static var exportArguments: [String] { ["export", "--week", "2026-W49", "-o", "week.ics"] }
    static let eventCount = 30

    /// A stand-in account whose mailbox is in Berlin with `eventCount` events in week 49, on a fast path
    /// (no latency, no throttling) unless a test adds it.
    static func exportAccount() throws -> StandInAccount {
        let account = try StandInAccount()
        let standIn = account.standIn
        standIn.addUser(displayName: "Ada Lovelace", mail: "ada@contoso.example", mailboxTimeZone: berlinWindows)
        for index in 0..<eventCount {
            let start = week49.addingTimeInterval(8 * 3600 + Double(index) * 5400)
            try standIn.addEvent([
                "subject": "Event \(index)",
                "start": ["dateTime": graphUTC(start), "timeZone": "UTC"],
                "end": ["dateTime": graphUTC(start.addingTimeInterval(1800)), "timeZone": "UTC"],
            ])
        }
        return account
    }

    static func graphUTC(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate]
        return formatter.string(from: date)
    }

    static func calendarViewRequests(_ standIn: GraphStandIn) -> Int {
        standIn.requests.filter { $0.path.hasSuffix("/calendarView") }.count
    }

    static func jsonResponse(_ status: Int, _ body: String, headers: [(String, String)] = [])
        -> LoopbackHTTPServer.Response
    {
        LoopbackHTTPServer.Response(
            status: status, headers: [("Content-Type", "application/json")] + headers, body: Data(body.utf8))
    }

    static func throttled(retryAfter: String) -> LoopbackHTTPServer.Response {
        jsonResponse(
            429, #"{"error":{"code":"TooManyRequests","message":"Application is over its resource limit."}}"#,
            headers: [("Retry-After", retryAfter)])
    }

    // Computed, not stored: LeakSanitizer counts the buffers of a lazily initialised global as leaks.
    static var serverError: LoopbackHTTPServer.Response {
        jsonResponse(
            500, #"{"error":{"code":"InternalServerError","message":"Something went wrong on the server."}}"#)
    }
    static var garbage: Data { Data("\u{0}\u{7}SSH-2.0-OpenSSH_9.6 not http at all\r\n\r\n\u{FF}".utf8) }
    static var truncatedPage: LoopbackHTTPServer.Response {
        LoopbackHTTPServer.Response(
            status: 200, headers: [("Content-Type", "application/json")],
            body: Data(
                (#"{"value":[{"id":"AAMk-truncated","subject":"A page cut short","start":{"dateTime":"2026-12-01T10:00:00","#
                    + String(repeating: " ", count: 4096) + #""timeZone":"UTC"}}]}"#).utf8))
    }

    /// A fault that passes: graph-ics retries and the run succeeds.
    struct TransientFault: CustomTestStringConvertible, Sendable {
        var name: String
        var action: LoopbackHTTPServer.Action
        var times: Int
        var environment: [String: String] = [:]
        var testDescription: String { name }
    }

    static var transientFaults: [TransientFault] {
        [
            TransientFault(name: "connection closed without an answer, twice", action: .closeConnection, times: 2),
            TransientFault(
                name: "body cut off after 40 bytes", action: .truncated(truncatedPage, keepingBytes: 40), times: 1),
            TransientFault(
                name: "answer slower than GRAPH_ICS_TIMEOUT",
                action: .delayed(.seconds(3), jsonResponse(200, #"{"value":[]}"#)), times: 1,
                environment: ["GRAPH_ICS_TIMEOUT": "0.4"]),
            TransientFault(
                name: "429 storm of four, then recovery", action: .respond(throttled(retryAfter: "0.05")), times: 4),
            TransientFault(
                name: "503 with Retry-After, twice",
                action: .respond(
                    jsonResponse(
                        503, #"{"error":{"code":"ServiceUnavailable","message":"Try later."}}"#,
                        headers: [("Retry-After", "0.05")])), times: 2),
        ]
    }

    /// A fault that does not pass: graph-ics gives up.
    struct FinalFault: CustomTestStringConvertible, Sendable {
        var name: String
        var action: LoopbackHTTPServer.Action
        var status: Int32
        var mentioning: [String]
        /// The most requests for the faulty path graph-ics may send (no retry where retrying cannot help).
        var maxRequests: Int
        var testDescription: String { name }
    }

    static var finalFaults: [FinalFault] {
        [
            FinalFault(
                name: "500", action: .respond(serverError), status: 69, mentioning: ["HTTP 500"], maxRequests: 1),
            FinalFault(
                name: "garbage instead of HTTP", action: .raw(garbage), status: 69, mentioning: [], maxRequests: 1),
            FinalFault(
                name: "HTML instead of JSON",
                action: .respond(
                    LoopbackHTTPServer.Response(
                        status: 200, headers: [("Content-Type", "text/html")],
                        body: Data("<html><body>Sign in to the Wi-Fi</body></html>".utf8))),
                status: 69, mentioning: [], maxRequests: 1),
            FinalFault(
                name: "JSON cut short with a matching Content-Length",
                action: .respond(jsonResponse(200, #"{"value":[{"id":"AAMk-1","subject":"cut"#)), status: 69,
                mentioning: [], maxRequests: 1),
            FinalFault(
                name: "429 storm longer than the retries", action: .respond(throttled(retryAfter: "0.05")), status: 69,
                mentioning: ["429"], maxRequests: 6),
            FinalFault(
                name: "429 asking to wait longer than the retry deadline",
                action: .respond(throttled(retryAfter: "3600")), status: 69, mentioning: ["429"], maxRequests: 1),
        ]
    }

    // MARK: export

    @Test(arguments: transientFaults)
    func exportRecoversFromATransientFaultAndWritesEveryEvent(_ fault: TransientFault) throws {
        let account = try Self.exportAccount()
        let output = try OutputExpectation.existing(in: account.folder)
        account.standIn.injectFault(fault.action, forPathContaining: "calendarView", times: fault.times)
        let environment = account.tokenEnvironment().merging(fault.environment) { _, new in new }

        let result = try account.run(Self.exportArguments, environment: environment)
        #expect(result.status == 0, "stderr: \(result.err)")
        let text = try String(contentsOf: output.url, encoding: .utf8)
        #expect(ICalendarText.events(text).count == Self.eventCount)
        #expect(Self.calendarViewRequests(account.standIn) == fault.times + 1)
        #expect(account.standIn.retryAfterViolations == 0)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: account.folder.path).filter {
            $0.contains(".graph-ics-")
        }
        #expect(leftovers.isEmpty)
    }

    @Test(arguments: finalFaults)
    func exportGivesUpWithOneSentenceAndLeavesTheOldFile(_ fault: FinalFault) throws {
        let account = try Self.exportAccount()
        let output = try OutputExpectation.existing(in: account.folder)
        account.standIn.injectFault(fault.action, forPathContaining: "calendarView", times: 50)

        let started = Date()
        let result = try account.run(Self.exportArguments, environment: account.tokenEnvironment())
        expectOneClearError(
            status: result.status, stdout: result.stdout, errLines: result.errLines, expected: fault.status,
            mentioning: fault.mentioning)
        #expect(result.err.contains("calendarView"), "the message says what graph-ics was doing: \(result.err)")
        #expect(Self.calendarViewRequests(account.standIn) <= fault.maxRequests)
        #expect(Date().timeIntervalSince(started) < 30)
        try output.expectUntouched()
    }

    @Test func exportWhoseConnectionDropsEveryTimeGivesUpWith69() throws {
        let account = try Self.exportAccount()
        let output = try OutputExpectation.existing(in: account.folder)
        account.standIn.injectFault(.closeConnection, forPathContaining: "calendarView", times: 50)

        let result = try account.run(Self.exportArguments, environment: account.tokenEnvironment())
        expectOneClearError(
            status: result.status, stdout: result.stdout, errLines: result.errLines, expected: 69,
            mentioning: ["calendarView"])
        // Six tries, then it stops: a bounded number of attempts (libcurl itself may resend once on a
        // fresh connection when a reused one turns out closed).
        let requests = Self.calendarViewRequests(account.standIn)
        #expect(requests >= 6 && requests <= 12, "\(requests) requests")
        try output.expectUntouched()
    }

    @Test func exportToStandardOutputPrintsNothingWhenGraphFails() throws {
        let account = try Self.exportAccount()
        account.standIn.injectFault(.respond(Self.serverError), forPathContaining: "calendarView", times: 50)
        let result = try account.run(
            ["export", "--week", "2026-W49", "-o", "-"], environment: account.tokenEnvironment())
        expectOneClearError(
            status: result.status, stdout: result.stdout, errLines: result.errLines, expected: 69,
            mentioning: ["HTTP 500"])
    }

    // MARK: whoami and the token endpoint

    @Test(arguments: transientFaults)
    func whoamiRecoversFromATransientFault(_ fault: TransientFault) throws {
        let account = try Self.exportAccount()
        account.standIn.injectFault(fault.action, forPathContaining: "/v1.0/me", times: fault.times)
        let environment = account.tokenEnvironment().merging(fault.environment) { _, new in new }
        let result = try account.run(["whoami"], environment: environment)
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.out.hasPrefix("Ada Lovelace <ada@contoso.example>\n"), "stdout: \(result.out)")
        #expect(result.stderr.isEmpty, "stderr: \(result.err)")
    }

    @Test(arguments: finalFaults)
    func whoamiGivesUpWithOneSentence(_ fault: FinalFault) throws {
        let account = try Self.exportAccount()
        account.standIn.injectFault(fault.action, forPathContaining: "/v1.0/me", times: 50)
        let result = try account.run(["whoami"], environment: account.tokenEnvironment())
        expectOneClearError(
            status: result.status, stdout: result.stdout, errLines: result.errLines, expected: fault.status,
            mentioning: fault.mentioning)
        #expect(account.standIn.requests.count <= fault.maxRequests)
    }

    @Test(arguments: ["0", "-1", "soon", "nan", "7200"])
    func aTimeoutThatIsNotANumberOfSecondsIsAUsageError(value: String) throws {
        let account = try Self.exportAccount()
        let environment = account.tokenEnvironment().merging(["GRAPH_ICS_TIMEOUT": value]) { _, new in new }
        let result = try account.run(["whoami"], environment: environment)
        expectOneClearError(
            status: result.status, stdout: result.stdout, errLines: result.errLines, expected: 64,
            mentioning: ["GRAPH_ICS_TIMEOUT", "'\(value)'"])
        #expect(account.standIn.requests.isEmpty)
    }

    @Test func aTokenRefreshThroughADroppedConnectionIsRetriedAndSaved() throws {
        let account = try Self.exportAccount()
        let environment = try account.savedSignInEnvironment(accessTokenExpired: true)
        account.standIn.injectFault(.closeConnection, forPathContaining: "/oauth2/v2.0/token", times: 1)
        let result = try account.run(["whoami"], environment: environment)
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(account.standIn.requests.filter { $0.path.hasSuffix("/oauth2/v2.0/token") }.count == 2)
    }

    @Test func aSignInServiceAnswering500Exits69AndKeepsTheSavedSignIn() throws {
        let account = try Self.exportAccount()
        let environment = try account.savedSignInEnvironment(accessTokenExpired: true)
        let saved = try FileManager.default.contentsOfDirectory(atPath: account.configDirectory.path).map {
            try Data(contentsOf: account.configDirectory.appendingPathComponent($0))
        }
        account.standIn.injectFault(.respond(Self.serverError), forPathContaining: "/oauth2/v2.0/token", times: 50)
        let result = try account.run(["whoami"], environment: environment)
        expectOneClearError(status: result.status, stdout: result.stdout, errLines: result.errLines, expected: 69)
        // The account's lock file (empty, made by the refresh) is not part of the sign-in.
        let after = try FileManager.default.contentsOfDirectory(atPath: account.configDirectory.path)
            .filter { !$0.hasSuffix(".lock") }.map {
                try Data(contentsOf: account.configDirectory.appendingPathComponent($0))
            }
        #expect(after == saved, "a failed refresh must not damage or drop the saved sign-in")
    }

    // MARK: import

    /// A stand-in account (mailbox in Berlin, signed in with a token) and an `.ics` file of `count` events
    /// with UIDs `fault-N@tests.example`.
    static func importAccount(events count: Int) throws -> (account: StandInAccount, file: String) {
        let account = try StandInAccount()
        account.standIn.addUser(
            displayName: "Alex Example", mail: "alex@contoso.example", mailboxTimeZone: berlinWindows)
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//graph-ics fault tests//EN", "METHOD:PUBLISH"]
        for index in 0..<count {
            lines += [
                "BEGIN:VEVENT", "UID:fault-\(index)@tests.example", "DTSTAMP:20261201T100000Z",
                String(format: "DTSTART:202703%02dT%02d0000Z", 1 + (index / 10) % 28, 8 + index % 10),
                "DURATION:PT45M", "SUMMARY:Fault test \(index)", "END:VEVENT",
            ]
        }
        lines.append("END:VCALENDAR")
        let file = account.folder.appendingPathComponent("events-\(count).ics")
        try Data((lines.joined(separator: "\r\n") + "\r\n").utf8).write(to: file)
        return (account, file.path)
    }

    /// The source UIDs of the events on the stand-in (graph-ics's identity property).
    static func importedUIDs(_ standIn: GraphStandIn) -> [String] {
        standIn.events().compactMap { event -> String? in
            let properties = event["singleValueExtendedProperties"] as? [[String: Any]] ?? []
            return properties.first { ($0["id"] as? String)?.hasSuffix("graph-ics.source-uid") == true }?["value"]
                as? String
        }
    }

    /// Runs the import again on a healthy stand-in: every event must then exist exactly once.
    static func expectReRunCompletesWithoutDuplicates(
        _ account: StandInAccount, file: String, count: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let again = try account.run(["import", file], environment: account.tokenEnvironment())
        #expect(again.status == 0, "re-run stderr: \(again.err)", sourceLocation: sourceLocation)
        let uids = importedUIDs(account.standIn)
        #expect(account.standIn.eventCount == count, sourceLocation: sourceLocation)
        #expect(
            uids.count == count && Set(uids).count == count, "duplicates: \(uids.count)", sourceLocation: sourceLocation
        )
    }

    @Test(arguments: transientFaults)
    func importRecoversFromATransientFaultWithoutDuplicates(_ fault: TransientFault) throws {
        let (account, file) = try Self.importAccount(events: 40)
        account.standIn.injectFault(fault.action, forPathContaining: "$batch", times: fault.times)
        let environment = account.tokenEnvironment().merging(fault.environment) { _, new in new }
        let result = try account.run(["import", file], environment: environment)
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(account.standIn.eventCount == 40)
        #expect(Set(Self.importedUIDs(account.standIn)).count == 40)

        let posts = account.standIn.operations.filter { $0.method == "POST" }.count
        try Self.expectReRunCompletesWithoutDuplicates(account, file: file, count: 40)
        #expect(account.standIn.operations.filter { $0.method == "POST" }.count == posts, "the re-run created")
    }

    /// A fault that starts once the first events exist: the batches under way finish, the next fail; the
    /// run stops with the fault's status and a re-run completes the import, creating nothing twice.
    @Test(arguments: finalFaults)
    func importStoppedByAFaultMidwayCanBeRunAgain(_ fault: FinalFault) throws {
        let (account, file) = try Self.importAccount(events: 100)
        let standIn = account.standIn
        standIn.latency = .milliseconds(10)
        let child = try SpawnedGraphICS(["import", file], environment: account.tokenEnvironment(), in: account.folder)
        #expect(waitUntil { standIn.eventCount > 0 })
        standIn.injectFault(fault.action, forPathContaining: "$batch", times: 1000)
        let result = try child.wait()
        #expect(result.status == fault.status, "stderr: \(result.err)")
        let errors = result.errLines.filter { $0.hasPrefix("error: ") }
        #expect(errors.last?.contains("Run the same import again") == true, "stderr: \(result.err)")
        for fragment in fault.mentioning {
            #expect(errors.last?.contains(fragment) == true, "stderr: \(result.err)")
        }
        let partial = standIn.eventCount
        #expect(partial > 0 && partial < 100, "\(partial) events before the re-run")

        standIn.latency = .zero
        try Self.drainFaults(standIn, path: "/$batch")
        try Self.expectReRunCompletesWithoutDuplicates(account, file: file, count: 100)
    }

    /// Uses up the faults still queued for `path` (the stand-in has no call to clear them): GETs it until
    /// the stand-in itself answers (405, the method is wrong), so that the next run meets a healthy Graph.
    static func drainFaults(_ standIn: GraphStandIn, path: String) throws {
        let transport = CurlTransport(defaultTimeout: .seconds(5))
        let url = try #require(URL(string: standIn.baseURL + path))
        for _ in 0..<5000 {
            if let response = try? transport.send(HTTPRequest(method: "GET", url: url)), response.status == 405 {
                return
            }
        }
        Issue.record("the faults for \(path) never ran out")
    }

    /// Graph creates the events of a batch but its answer comes later than GRAPH_ICS_TIMEOUT: graph-ics sends
    /// the batch again, and the transactionIds make Graph return the events it already created. (With
    /// `--on-duplicate new` no lookup comes first, so the transactionId alone must prevent the duplicates.)
    @Test func aBatchThatTimedOutAfterGraphCreatedItsEventsIsReplayedWithoutDuplicates() throws {
        let (account, file) = try Self.importAccount(events: 40)
        let standIn = account.standIn
        standIn.latency = .milliseconds(40)  // a batch of twenty creates: a chain of 800 ms
        let environment = account.tokenEnvironment().merging(["GRAPH_ICS_TIMEOUT": "0.5"]) { _, new in new }
        let child = try SpawnedGraphICS(
            ["import", "--on-duplicate", "new", file], environment: environment, in: account.folder)
        #expect(waitUntil { standIn.operations.contains { $0.method == "POST" } })
        usleep(600_000)  // the client has given up on the first create batches; Graph is still creating
        standIn.latency = .milliseconds(1)
        let result = try child.wait()
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(standIn.eventCount == 40)
        #expect(Set(Self.importedUIDs(standIn)).count == 40)
        var sent: [String: Int] = [:]
        for operation in standIn.operations where operation.method == "POST" {
            if let id = (operation.jsonBody as? [String: Any])?["transactionId"] as? String {
                sent[id, default: 0] += 1
            }
        }
        #expect(sent.values.contains { $0 > 1 }, "no create was sent twice, so no timeout happened")
    }

    // MARK: Ctrl-C

    @Test func ctrlCDuringAnImportExits130AndARunAgainCreatesEveryEventOnce() throws {
        let (account, file) = try Self.importAccount(events: 120)
        let standIn = account.standIn
        standIn.latency = .milliseconds(15)
        let child = try SpawnedGraphICS(["import", file], environment: account.tokenEnvironment(), in: account.folder)
        #expect(waitUntil { standIn.operations.contains { $0.method == "POST" } })
        usleep(60_000)
        child.send(SIGINT)
        let result = try child.wait()
        #expect(result.status == 130, "stderr: \(result.err)")
        let created = result.errLines.filter { $0.hasSuffix(": created") }.count
        #expect(
            result.errLines.contains(
                "error: interrupted: \(created) of 120 event(s) created so far; run the same import again to finish"
                    + " the rest (nothing is created twice)"), "\(result.err)")
        usleep(400_000)  // let the stand-in finish the chains it had started
        #expect(standIn.eventCount < 120)

        standIn.latency = .zero
        try Self.expectReRunCompletesWithoutDuplicates(account, file: file, count: 120)
    }

    /// The lines and the count an interrupted import prints: every event of a `$batch` that came back is
    /// reported (`created`) and counted, whether or not the whole batched write was done.
    static func expectCreatedReported(_ lines: [String], standIn: GraphStandIn) {
        let created = lines.filter { $0.hasSuffix(": created") }.count
        #expect(created >= 20, "the first batches came back before the interruption: \(lines)")
        #expect(created <= standIn.eventCount)
        #expect(
            lines.contains(
                "error: interrupted: \(created) of 120 event(s) created so far; run the same import again to finish"
                    + " the rest (nothing is created twice)"), "\(lines)")
    }

    @Test func ctrlCThroughAPipeReportsTheEventsOfTheBatchesThatCameBack() throws {
        let (account, file) = try Self.importAccount(events: 120)
        let standIn = account.standIn
        standIn.latency = .milliseconds(40)  // a chain of twenty creates: 800 ms; four chains at once
        let child = try SpawnedGraphICS(["import", file], environment: account.tokenEnvironment(), in: account.folder)
        // The first four chains are done at the stand-in and the last two under way.
        #expect(waitUntil(seconds: 60) { standIn.eventCount > 85 })
        usleep(300_000)
        child.send(SIGINT)
        let result = try child.wait()
        #expect(result.status == 130, "stderr: \(result.err)")
        usleep(1_000_000)  // let the stand-in finish the chains it had started
        Self.expectCreatedReported(result.errLines, standIn: standIn)
    }

    @Test func ctrlCOnATerminalReportsTheEventsOfTheBatchesThatCameBack() throws {
        let (account, file) = try Self.importAccount(events: 120)
        let standIn = account.standIn
        standIn.latency = .milliseconds(40)
        let run = try PseudoTerminalRun(["import", file], environment: account.tokenEnvironment())
        #expect(waitUntil(seconds: 60) { standIn.eventCount > 85 })
        usleep(300_000)
        run.type("\u{03}")
        let result = try run.finish()
        #expect(result.status == 130, "stderr: \(result.err)")
        usleep(1_000_000)
        Self.expectCreatedReported(result.err.split(separator: "\n").map(String.init), standIn: standIn)
    }

    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aSignalDuringAnExportRemovesTheTemporaryFileAndKeepsTheOldOne(signal: Int32) throws {
        let account = try Self.exportAccount()
        let output = try OutputExpectation.existing(in: account.folder)
        account.standIn.latency = .seconds(3)
        let child = try SpawnedGraphICS(
            Self.exportArguments + ["--tz", "Europe/Berlin"], environment: account.tokenEnvironment(),
            in: account.folder)
        #expect(waitUntil { Self.calendarViewRequests(account.standIn) > 0 })
        let during = try FileManager.default.contentsOfDirectory(atPath: account.folder.path)
        #expect(
            during.contains { $0.hasPrefix(".week.ics.graph-ics-") }, "no temporary file while exporting: \(during)")
        child.send(signal)
        let sent = Date()
        let result = try child.wait()
        #expect(result.status == 128 + signal, "stderr: \(result.err)")
        #expect(result.stdout.isEmpty)
        #expect(result.err.contains("error: interrupted"), "stderr: \(result.err)")
        #expect(Date().timeIntervalSince(sent) < 2.5, "graph-ics waited for the slow answer instead of stopping")
        try output.expectUntouched()
    }

    @Test func ctrlCDuringAnExportToStandardOutputPrintsNoCalendar() throws {
        let account = try Self.exportAccount()
        account.standIn.latency = .seconds(3)
        let child = try SpawnedGraphICS(
            ["export", "--week", "2026-W49", "-o", "-"], environment: account.tokenEnvironment(), in: account.folder)
        #expect(waitUntil { Self.calendarViewRequests(account.standIn) > 0 })
        child.send(SIGINT)
        let result = try child.wait()
        #expect(result.status == 130, "stderr: \(result.err)")
        #expect(result.stdout.isEmpty, "stdout: \(result.out)")
    }

    // MARK: The disk

    /// A folder on a tmpfs of `kibibytes` mounted for the test (root with CAP_SYS_ADMIN), or nil when the
    /// test process may not mount; `body` runs with it and it is unmounted afterwards.
    static func withTinyFileSystem<T>(kibibytes: Int, _ body: (URL?) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "graph-ics-tmpfs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        guard mount("tmpfs", folder.path, "tmpfs", 0, "size=\(kibibytes)k,mode=0755") == 0 else {
            return try body(nil)
        }
        defer { umount2(folder.path, Int32(MNT_DETACH)) }
        return try body(folder)
    }

    /// `-o` onto a full disk: on a 8 KiB tmpfs when the test may mount one (ENOSPC), else with the file size
    /// limit of the shell (`ulimit -f`, EFBIG with SIGXFSZ ignored) — the same failed write either way.
    @Test(arguments: ["export", "convert"])
    func aFullDiskExits74AndLeavesTheOldFileWhole(command: String) throws {
        let account = try Self.exportAccount()
        try Self.withTinyFileSystem(kibibytes: 8) { tmpfs in
            let folder = tmpfs ?? account.folder
            let output = try OutputExpectation.existing(in: folder)
            let limits = tmpfs == nil ? "ulimit -f 4; trap '' XFSZ" : ""
            let arguments =
                command == "export"
                ? ["export", "--week", "2026-W49", "-o", output.url.path]
                : ["convert", Package.fixture("graph/sample-week.json").path, "-o", output.url.path]
            let child = try SpawnedGraphICS(
                arguments, environment: account.tokenEnvironment(), in: account.folder, limits: limits)
            let result = try child.wait()
            expectOneClearError(
                status: result.status, stdout: result.stdout, errLines: result.errLines, expected: 74,
                mentioning: [tmpfs == nil ? "File too large" : "No space left on device", output.url.path])
            try output.expectUntouched()
        }
    }

    /// `-o` into a folder nobody may write: a tmpfs remounted read-only (EROFS, even for root) when the test
    /// may mount, else a folder made 0555 (which only stops a user who is not root).
    @Test(arguments: ["export", "convert"])
    func aReadOnlyOutputFolderExits73BeforeAnythingIsFetched(command: String) throws {
        let account = try Self.exportAccount()
        try Self.withTinyFileSystem(kibibytes: 64) { tmpfs in
            let folder = tmpfs ?? account.folder.appendingPathComponent("read-only")
            if tmpfs == nil { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
            let output = try OutputExpectation.existing(in: folder)
            if let tmpfs {
                try #require(mount("tmpfs", tmpfs.path, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), nil) == 0)
            } else {
                chmod(folder.path, 0o555)
                try #require(
                    access(folder.path, W_OK) != 0, "running as root without CAP_SYS_ADMIN: no read-only folder")
            }
            defer { chmod(folder.path, 0o755) }
            let arguments =
                command == "export"
                ? ["export", "--week", "2026-W49", "-o", output.url.path]
                : ["convert", Package.fixture("graph/sample-week.json").path, "-o", output.url.path]
            let result = try account.run(arguments, environment: account.tokenEnvironment())
            expectOneClearError(
                status: result.status, stdout: result.stdout, errLines: result.errLines, expected: 73,
                mentioning: [output.url.path, tmpfs == nil ? "Permission denied" : "Read-only file system"])
            #expect(account.standIn.requests.isEmpty, "graph-ics fetched before finding it cannot write")
            try output.expectUntouched()
        }
    }
}
