import Dispatch
import Foundation
import GraphICS
import GraphICSDAV
import GraphICSServe
import GraphICSSync
import ICalBridge
import Synchronization

/// `graph-ics serve`: serves the feeds of feeds.json over HTTP(S) until stopped. The feeds are refreshed
/// by ``FeedService`` (one thread per mailbox), answered by ``FeedRouter`` through libmicrohttpd
/// (``HTTPServer``); this command resolves each feed's calendar and zone, watches feeds.json, and owns the
/// signals: SIGTERM and SIGINT stop it gracefully (exit 0), SIGHUP re-reads feeds.json.
struct ServeCommand: Command {
    static let name = "serve"
    static let abstract = "Serve the feeds of 'graph-ics feed' to calendar apps, always fresh."
    static let synopsis = [
        "[--listen ADDR:PORT] [--base-url URL] [--refresh SECONDS]",
        "[--tls-cert FILE --tls-key FILE] [--tz ZONE] [-v]",
    ]
    static let discussion = """
        Serves every feed of 'graph-ics feed list' at its URL until stopped, for calendar apps to
        subscribe to. Each feed is read from Graph again every --refresh seconds (only what changed
        is read, through calendarView/delta for the default calendar) and its body is rendered once
        per change: the answers carry an ETag, Last-Modified and Cache-Control, and a client that
        has the current version gets 304 Not Modified. When Graph fails or the sign-in expires, the
        last good body is still served, with a Warning header giving its age, and serve recovers by
        itself. The last body and Graph's change state are kept in the state folder
        ($GRAPH_ICS_STATE_DIR, else $XDG_STATE_HOME/graph-ics, else ~/.local/state/graph-ics), so a
        restart serves at once.

        Standard error gets "graph-ics serve: listening on URL (N feeds)" once serving, then one
        line per request (the secret shown as …), and errors. GET /healthz answers each feed's last
        successful refresh and last error, without names. 'feed add', 'remove' and 'rotate' take
        effect within two seconds; SIGHUP re-reads feeds.json at once. SIGTERM and SIGINT let the
        requests under way finish and exit 0: serve is a service, not one of the one-shot commands
        that exit with 128 + the signal; a second one ends it at once.

        The default address is 127.0.0.1:8080 (port 0 picks a free port). Listening elsewhere
        without TLS sends the secrets in clear text: give --tls-cert and --tls-key, or keep serve on
        127.0.0.1 behind a reverse proxy with TLS and give its public address as --base-url, which
        'feed list' then uses. Without --base-url, on 0.0.0.0 or [::] (every address), 'feed list'
        shows URLs with this machine's host name, not an address nobody can open.
        """
    static let epilogue = """
        Examples:
          graph-ics serve
          graph-ics serve --listen 127.0.0.1:8080 --base-url https://cal.example.com
          graph-ics serve --listen 0.0.0.0:8443 --tls-cert cert.pem --tls-key key.pem

        Exit status: 0 stopped by SIGTERM or SIGINT, 64 usage, 66 a TLS file is missing,
        69 cannot listen on the address (in use, or not this machine's), 74 feeds.json or the
        state folder cannot be read, 77 not signed in, 128 + N a second signal N while stopping.
        """

    struct Options: OptionGroup {
        let listen = Option<ListenAddress>(
            spec: OptionSpec(
                long: "--listen", valueName: "ADDR:PORT",
                help: "Listen on this address and port: an IPv4 address, or an IPv6 one in brackets ([::1]:8080). "
                    + "Port 0 picks a free one.")
        ) { (text: String) throws(UsageError) -> ListenAddress in try ListenAddress(text) }
        let baseURL = Option(
            "--base-url", value: "URL",
            help: "The feeds' public address when serve is behind a reverse proxy (https://cal.example.com); "
                + "'feed list' shows URLs under it.")
        let refresh = Defaulted<Int>(
            option: Option(
                spec: OptionSpec(
                    long: "--refresh", valueName: "SECONDS",
                    help: "Read each feed from Graph again after this many seconds (1 to 86400).")
            ) { (text: String) throws(UsageError) -> Int in
                guard let seconds = Int(text), (1...86400).contains(seconds) else {
                    throw UsageError("--refresh takes a number of seconds from 1 to 86400, not '\(text)'")
                }
                return seconds
            }, value: 300)
        let tlsCert = Option(
            "--tls-cert", value: "FILE", help: "Serve HTTPS with this PEM certificate (chain); needs --tls-key.",
            completion: .file)
        let tlsKey = Option(
            "--tls-key", value: "FILE", help: "The PEM private key of --tls-cert.", completion: .file)
        let zone = Option.zone(
            help: "Days begin and end in this zone (IANA or Windows name) for every feed's window, instead of "
                + "each mailbox's zone.")
        let connection: ConnectionOptions.Declarations = {
            var declarations = ConnectionOptions.Declarations()
            declarations.user = declarations.user.hidden()
            declarations.verbose = Flag(
                "-v", "--verbose",
                help: "Log every refresh: feed NAME: changed or unchanged, with its Graph requests and CPU time.")
            return declarations
        }()
    }

    var listen: ListenAddress
    var baseURL: String?
    var refresh: Int
    var tls: (cert: String, key: String)?
    var zone: ResolvedZone?
    var connection: ConnectionOptions

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        guard parsed.positionals.isEmpty else { throw UsageError("serve takes no arguments") }
        listen = try parsed[\.listen] ?? ListenAddress(host: "127.0.0.1", port: 8080)
        baseURL = try parsed[\.baseURL]
        if let baseURL, !(baseURL.hasPrefix("http://") || baseURL.hasPrefix("https://")) {
            throw UsageError("--base-url takes an http:// or https:// URL, not '\(baseURL)'")
        }
        refresh = try parsed[\.refresh]
        let cert = try parsed[\.tlsCert]
        let key = try parsed[\.tlsKey]
        switch (cert, key) {
        case (let cert?, let key?): tls = (cert, key)
        case (nil, nil): tls = nil
        default: throw UsageError("--tls-cert and --tls-key go together")
        }
        zone = try parsed[\.zone]
        connection = try ConnectionOptions(parsed.group(\.connection))
        if connection.user != nil {
            throw UsageError("serve reads each feed's own mailbox; give --user to 'graph-ics feed add' instead")
        }
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        let environment = ProcessInfo.processInfo.environment
        let configDirectory = try ConfigDirectory.url(environment)
        let store = FeedStore(directory: configDirectory)
        let configuration = try Self.load(store)
        let davStore = DAVLoginStore(path: DAVLoginStore.path(configDirectory: configDirectory.path))
        let logins: [DAVLogin]
        do {
            logins = try davStore.load()
        } catch {
            throw CommandFailure(.ioError, "\(error)")
        }
        let stateDirectory = try Self.stateDirectory(environment)
        var server = HTTPServerConfiguration()
        server.address = listen.host
        server.port = listen.port
        server.tls = try tls.map { try Self.credentials($0.cert, $0.key) }
        server.errorLog = { terminal.err("graph-ics serve: libmicrohttpd: \($0)") }
        if server.tls == nil && !listen.isLoopback && !logins.isEmpty {
            throw CommandFailure(
                .usage,
                "CalDAV logins exist ('graph-ics dav list'), and serve does not send their passwords in clear text "
                    + "over \(listen.host): give --tls-cert and --tls-key, or listen on 127.0.0.1 behind a reverse "
                    + "proxy that serves HTTPS (nginx, Caddy)")
        }
        if server.tls == nil && !listen.isLoopback {
            terminal.warning(
                "serving on \(listen.host) without TLS: each feed's secret and its events travel in clear text, "
                    + "readable by anyone on the network path; give --tls-cert and --tls-key, or listen on "
                    + "127.0.0.1 behind a reverse proxy that serves HTTPS (nginx, Caddy) and pass its --base-url")
        }
        let cancellation = RequestCancellation()
        let mailboxes = try ServeMailboxes(
            configuration.feeds, connection: connection, zone: zone,
            remembered: RememberedTargets(stateDirectory: stateDirectory), cancellation: cancellation,
            terminal: terminal)
        let service = FeedService(
            refreshInterval: refresh, stateDirectory: stateDirectory, resolve: mailboxes.resolve,
            log: { terminal.err($0) }, verbose: connection.verbose, cancellation: cancellation)
        service.load(configuration)
        let dav = davGateway(
            davStore, stateDirectory: stateDirectory, cancellation: cancellation, environment: environment, terminal)
        let http: HTTPServer
        do {
            http = try HTTPServer(configuration: server) { request in
                let started = DispatchTime.now()
                var response: HTTPServerResponse
                var user: String?
                if DAVGateway.handles(request.path) {
                    (response, user) = dav.respondNamingLogin(to: request)
                } else {
                    response = service.respond(to: request)
                    if request.path == "/healthz" { response = dav.addingHealth(to: response) }
                }
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e6
                terminal.err(
                    AccessLog.line(request, response, milliseconds: elapsed) + (user.map { " login \($0)" } ?? ""))
                return response
            }
        } catch {
            service.stop()
            throw CommandFailure(.unavailable, "\(error)")
        }
        let davRefresh = DAVRefreshLoop(gateway: dav, interval: refresh)
        let scheme = server.tls == nil ? "http" : "https"
        let url = listen.url(scheme: scheme, port: http.port)
        // 0.0.0.0 is no address anyone can open: feed list shows the machine's name instead.
        var reachable = baseURL ?? url
        if baseURL == nil && listen.isUnspecified {
            reachable = ListenAddress(host: ListenAddress.machineName(), port: http.port).url(
                scheme: scheme, port: http.port)
        }
        let watcher = try watch(store, service: service, baseURL: reachable, terminal)
        terminal.err("graph-ics serve: listening on \(url) (\(configuration.feeds.count) feeds)")
        if baseURL == nil && listen.isUnspecified {
            terminal.note(
                "listening on every address: 'graph-ics feed list' shows URLs with this machine's name, \(reachable); "
                    + "give --base-url when subscribers reach it by another name or through a proxy")
        }
        if !logins.isEmpty {
            terminal.err("graph-ics serve: CalDAV at \(reachable)/dav/ (\(logins.count) logins)")
        }
        if configuration.feeds.isEmpty && logins.isEmpty {
            terminal.note("no feeds yet; add one with 'graph-ics feed add NAME'")
        }
        waitForStop(watcher)
        // Each of these waits for its threads: the watcher's, libmicrohttpd's (the responses under way
        // finish) with the request deadlines' watchdog, and the refresh threads, the feeds' and then the
        // gateway's, whose Graph requests and retry waits are cancelled (`service.stop()` cancels them all).
        watcher.stop()
        http.stop()
        service.stop()
        dav.stop()
        davRefresh.stop()
        terminal.err("graph-ics serve: stopped")
        return .ok
    }

    /// The CalDAV gateway: one session per saved sign-in its logins name, opened on first use from the token
    /// store alone (`GRAPH_ICS_ACCESS_TOKEN` is ignored for CalDAV, which needs a sign-in that can be
    /// refreshed: said once).
    private func davGateway(
        _ store: DAVLoginStore, stateDirectory: URL, cancellation: RequestCancellation,
        environment: [String: String], _ terminal: Terminal
    ) -> DAVGateway {
        var sessionEnvironment = environment
        if sessionEnvironment.removeValue(forKey: "GRAPH_ICS_ACCESS_TOKEN") != nil {
            terminal.note("GRAPH_ICS_ACCESS_TOKEN is not used for CalDAV logins: they use their saved sign-ins")
        }
        let connection = connection
        let zone = zone
        let openEnvironment = sessionEnvironment
        let accounts = DAVAccounts(stateDirectory: stateDirectory.path, log: { terminal.err($0) }) { account in
            var options = connection
            options.account = account
            options.user = nil
            options.verbose = false
            // A sign-in only read-only logins use may hold Calendars.Read alone.
            let writes = ((try? store.load()) ?? []).contains { $0.account == account && !$0.readOnly }
            do {
                let session = try Session.open(
                    options, need: writes ? .write : .read, terminal: terminal, environment: openEnvironment,
                    cancellation: cancellation)
                let mailbox = try SyncCommand.account(session, user: nil)
                let mailboxZone = zone ?? (try? session.mailboxZone(override: nil, terminal: terminal))
                return DAVAccounts.Session(client: session.client, mailbox: mailbox, zone: mailboxZone)
            } catch {
                return DAVAccounts.Session(client: nil, mailbox: nil, problem: "\(error)")
            }
        }
        let basePath = baseURL.flatMap { URLComponents(string: $0)?.percentEncodedPath } ?? ""
        return DAVGateway(
            authenticator: DAVAuthenticator(store: store), accounts: accounts, basePath: basePath,
            refreshInterval: refresh, log: { terminal.err($0) })
    }

    /// Stores the base URL for `feed list` (when it changed), then watches feeds.json from that version on.
    private func watch(
        _ store: FeedStore, service: FeedService, baseURL: String, _ terminal: Terminal
    ) throws -> FeedWatcher {
        do {
            if try store.load().baseURL != baseURL { try store.update { $0.baseURL = baseURL } }
        } catch {
            terminal.warning("\(store.fileURL.path): the base URL cannot be stored for 'feed list': \(error)")
        }
        return FeedWatcher(store: store, stamp: store.stamp()) {
            do {
                let configuration = try store.load()
                service.load(configuration)
                terminal.err("graph-ics serve: read feeds.json again (\(configuration.feeds.count) feeds)")
            } catch {
                terminal.warning("\(store.fileURL.path) cannot be read: \(error); the feeds are served as they were")
            }
        }
    }

    /// Blocks until SIGTERM or SIGINT; SIGHUP re-reads feeds.json.
    ///
    /// A second SIGTERM or SIGINT, while the requests in flight are being finished, ends serve at once
    /// with 128 + the signal (Ctrl-C twice).
    private static let stopping = Atomic<Bool>(false)

    private func waitForStop(_ watcher: FeedWatcher) {
        let stop = DispatchSemaphore(value: 0)
        Interruption.handOver { signal in
            if signal == SIGHUP { return watcher.reloadNow() }
            if Self.stopping.exchange(true, ordering: .sequentiallyConsistent) { _exit(128 + signal) }
            stop.signal()
        }
        stop.wait()
    }

    static func load(_ store: FeedStore) throws -> FeedConfiguration {
        do {
            return try store.load()
        } catch {
            throw CommandFailure(.ioError, "\(error)")
        }
    }

    static func stateDirectory(_ environment: [String: String]) throws -> URL {
        do {
            let path = try StateDirectory.path(environment)
            try StateDirectory.prepare(path)
            return URL(fileURLWithPath: path, isDirectory: true)
        } catch {
            throw CommandFailure(.ioError, "the state folder cannot be used: \(error)")
        }
    }

    static func credentials(_ cert: String, _ key: String) throws -> TLSCredentials {
        func read(_ path: String, _ what: String) throws -> String {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandFailure(.inputMissing, "\(path): the TLS \(what) cannot be read")
            }
            return String(decoding: data, as: UTF8.self)
        }
        return TLSCredentials(certificatePEM: try read(cert, "certificate"), keyPEM: try read(key, "key"))
    }
}

/// `--listen ADDR:PORT`: an IPv4 literal (or `localhost`) or a bracketed IPv6 literal, and a port.
struct ListenAddress: Sendable, Equatable {
    var host: String
    var port: UInt16

    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    init(_ text: String) throws(UsageError) {
        let problem = UsageError("--listen takes ADDR:PORT (127.0.0.1:8080, [::1]:8080, 0.0.0.0:0), not '\(text)'")
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw problem
        }
        var host = String(text[..<colon])
        if host == "localhost" { host = "127.0.0.1" }
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
            guard Self.isIPv6(host) else { throw problem }
        } else {
            guard Self.isIPv4(host) else { throw problem }
        }
        self.host = host
        self.port = port
    }

    static func isIPv4(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    static func isIPv6(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }

    /// 0.0.0.0 or `::`: every address of the machine, and none a client can connect to.
    var isUnspecified: Bool {
        Self.isIPv6(host) ? host.allSatisfy { $0 == ":" || $0 == "0" } : host == "0.0.0.0"
    }

    /// The machine's host name (`gethostname`), `localhost` when it has none.
    static func machineName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }

    /// 127.0.0.0/8 or ::1: only this machine can connect.
    var isLoopback: Bool {
        Self.isIPv6(host) ? host == "::1" || host == "0:0:0:0:0:0:0:1" : host.hasPrefix("127.")
    }

    /// `http://127.0.0.1:8080`, `https://[::1]:8443`.
    func url(scheme: String, port: UInt16) -> String {
        "\(scheme)://\(Self.isIPv6(host) ? "[\(host)]" : host):\(port)"
    }
}
