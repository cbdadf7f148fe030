import Foundation
import GraphICS
import GraphStandIn

/// The steps of `graph-ics demo`, in order: each prints its command line (`$ graph-ics …`) and runs it as a
/// child `graph-ics` in the demo's folder, with the environment of ``childEnvironment``.
struct DemoScript {
    let folder: DemoFolder
    let standIn: GraphStandIn
    let mailbox: DemoMailbox
    let terminal: Terminal
    /// The environment of every step (see ``environment(folder:standIn:)``).
    let childEnvironment: [String: String]

    init(folder: DemoFolder, standIn: GraphStandIn, mailbox: DemoMailbox, terminal: Terminal) {
        self.folder = folder
        self.standIn = standIn
        self.mailbox = mailbox
        self.terminal = terminal
        childEnvironment = Self.environment(folder: folder, standIn: standIn)
    }

    func run() throws {
        introduce()
        try step("whoami")
        try step("calendars")
        try step("agenda", "--week", "this")
        try step("week", "--week", "this", "--width", "100")
        try exports()
        try imports()
        try sync()
        try serve()
        farewell()
    }

    // MARK: Steps

    private func introduce() {
        say(
            """
            # graph-ics demo: a stand-in for Microsoft Graph serves the mailbox of \(DemoMailbox.displayName)
            # <\(DemoMailbox.mail)> (\(DemoMailbox.windowsZone)) at \(standIn.baseURL), with a week of
            # events. The commands below run with GRAPH_ICS_GRAPH_URL and GRAPH_ICS_AUTHORITY pointing there,
            # GRAPH_ICS_ACCESS_TOKEN holding a token of the stand-in (not shown), and GRAPH_ICS_CONFIG_DIR and
            # GRAPH_ICS_STATE_DIR inside the demo's folder: your own sign-in is not used.
            $ cd \(folder.url.path)
            """)
    }

    private func exports() throws {
        try step("export", "--week", "this", "-o", "this-week.ics")
        try grep("SUMMARY", in: "this-week.ics")
        say("# --recurrence series: the stand-up as one RRULE, Thursday's cancelled one as an EXDATE and")
        say("# Wednesday's moved one as an override with a RECURRENCE-ID:")
        try step("export", "--week", "this", "--recurrence", "series", "-o", "this-week-series.ics")
        try grep("SUMMARY|RRULE:FREQ=WEEKLY|EXDATE|RECURRENCE-ID", in: "this-week-series.ics")
    }

    private func imports() throws {
        let days = DemoFiles(monday: mailbox.monday)
        try folder.write(days.ticket, to: "ticket.ics")
        say("# a train ticket as a booking site mails it, saved as ticket.ics:")
        try step("import", "ticket.ics")
        say("# the same ticket again: graph-ics finds the event it made and leaves it alone")
        try step("import", "ticket.ics")
        try folder.write(days.invitation, to: "invitation.ics")
        say("# an invitation with an organizer and attendees; a dry run shows what would be sent, and that")
        say("# nobody would be mailed (attendees go into the event's text unless --as-meeting):")
        try step("import", "--dry-run", "invitation.ics", showingLines: 12)
    }

    private func sync() throws {
        try step("sync", "calendar")
        _ = try standIn.changeEvent(
            id: mailbox.planningID,
            ["subject": "Quarterly planning (room 4.12)", "location": ["displayName": "Room 4.12"]])
        say("# in Outlook: 'Quarterly planning' moved to room 4.12; here: a new file, calendar/lunch.ics")
        try folder.write(DemoFiles(monday: mailbox.monday).lunch, to: "calendar/lunch.ics")
        try step("sync", "calendar")
    }

    private func serve() throws {
        try step("feed", "add", "week", "--past", "7", "--future", "14")
        say("$ graph-ics serve --listen 127.0.0.1:0 --refresh 60 &")
        let server = try DemoChild.start(["serve", "--listen", "127.0.0.1:0", "--refresh", "60"], demo: self)
        defer { server.stop() }
        guard server.waitUntilListening(seconds: 20) else {
            throw CommandFailure(.ioError, "the demo's 'graph-ics serve' did not start listening within 20 s")
        }
        try step("feed", "list")
        let url = try feedURL()
        let lines = try fetch(url).replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n")
        say("$ curl -s \(url) | head -n 6")
        say(lines.prefix(6).joined(separator: "\n"))
        say("# a limited feed: times, subjects and places; the private appointment is a busy block")
        say("$ curl -s \(url) | grep -E '^(SUMMARY|DTSTART)'")
        say(Self.lines(of: lines, matching: "SUMMARY|DTSTART"))
    }

    private func farewell() {
        say(
            """

            # That was graph-ics against a stand-in; everything it wrote is in \(folder.url.path).
            # To do the same with your own Outlook or Microsoft 365 calendar, register an app (README,
            # "Signing in"), then:
            #   export GRAPH_ICS_CLIENT_ID=<application id>
            #   graph-ics login
            #   graph-ics agenda
            #   graph-ics export --week this -o this-week.ics
            """)
    }

    // MARK: Running

    /// Prints `$ grep -E '^(PATTERN)' FILE` and the lines of the demo's `file` that match, as grep would.
    private func grep(_ pattern: String, in file: String) throws {
        say("$ grep -E '^(\(pattern))' \(file)")
        let text: String
        do {
            text = try String(contentsOf: folder.url.appendingPathComponent(file), encoding: .utf8)
        } catch {
            throw CommandFailure(.ioError, "\(folder.url.appendingPathComponent(file).path) cannot be read: \(error)")
        }
        say(Self.lines(of: text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n"), matching: pattern))
    }

    /// The lines that match `^(pattern)`, joined by line feeds.
    static func lines(of lines: [Substring], matching pattern: String) -> String {
        guard let expression = try? NSRegularExpression(pattern: "^(" + pattern + ")") else { return "" }
        return lines.map(String.init).filter { line in
            expression.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil
        }.joined(separator: "\n")
    }

    /// Prints `$ graph-ics ARGUMENTS` and runs them in the demo's folder; with `showingLines`, standard
    /// output is cut after that many lines (a dry run's payloads). A step that fails ends the demo.
    private func step(_ arguments: String..., showingLines: Int? = nil) throws {
        say("$ graph-ics " + arguments.map(DemoChild.quoted).joined(separator: " "))
        let status = try DemoChild.run(arguments, demo: self, showingLines: showingLines)
        guard status == 0 else {
            throw CommandFailure(
                .ioError, "the demo's step 'graph-ics \(arguments.joined(separator: " "))' ended with status \(status)")
        }
    }

    func say(_ text: String) {
        terminal.out(text + "\n")
    }

    /// The environment of every step: this process's, less every `GRAPH_ICS_` variable and the XDG folders,
    /// with Graph, the authority and a token of the stand-in, and the config, state and home folders inside
    /// the demo's folder.
    static func environment(folder: DemoFolder, standIn: GraphStandIn) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in environment.keys where name.hasPrefix("GRAPH_ICS_") || name.hasPrefix("XDG_") {
            environment[name] = nil
        }
        environment["GRAPH_ICS_GRAPH_URL"] = standIn.baseURL
        environment["GRAPH_ICS_AUTHORITY"] = standIn.authority
        environment["GRAPH_ICS_ACCESS_TOKEN"] = standIn.issueAccessToken(lifetime: .seconds(3600))
        environment["GRAPH_ICS_CONFIG_DIR"] = folder.config.path
        environment["GRAPH_ICS_STATE_DIR"] = folder.state.path
        environment["HOME"] = folder.home.path
        return environment
    }

    /// The URL of the feed 'feed list' shows (serve stored its address).
    private func feedURL() throws -> String {
        let (status, output) = try DemoChild.capture(["feed", "list", "--json"], demo: self)
        guard status == 0,
            let feeds = try? JSONSerialization.jsonObject(with: output) as? [[String: Any]],
            let url = feeds.first?["url"] as? String
        else { throw CommandFailure(.ioError, "the demo's 'graph-ics feed list --json' gave no feed URL") }
        return url
    }

    /// The feed's body, as curl would print it; waits (at most 20 s) for serve's first refresh.
    private func fetch(_ text: String) throws -> String {
        guard let url = URL(string: text) else { throw CommandFailure(.ioError, "the feed URL \(text) is not a URL") }
        let transport = CurlTransport()
        let deadline = Date().addingTimeInterval(20)
        while true {
            let response = try transport.send(HTTPRequest(method: "GET", url: url))
            if response.status == 200 { return String(decoding: response.body, as: UTF8.self) }
            guard response.status == 503, Date() < deadline else {
                throw CommandFailure(.ioError, "the demo's feed answered HTTP \(response.status)")
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }
}
