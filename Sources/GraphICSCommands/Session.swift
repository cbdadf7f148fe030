import Foundation
import GraphICS
import ICalBridge

/// A signed-in connection to one mailbox: configuration, libcurl transport, token source and Graph client.
struct Session {
    /// How the session's token was granted, which decides the kind of permission a 403 asks for.
    enum Grant: Equatable {
        /// Signed in as a user (`graph-ics login`): delegated permissions.
        case delegated
        /// App-only access with a client secret (`--user` with `GRAPH_ICS_CLIENT_SECRET`): application
        /// permissions.
        case application
        /// `GRAPH_ICS_ACCESS_TOKEN`: either.
        case givenToken
    }

    let configuration: AuthConfiguration
    let transport: CurlTransport
    let client: GraphClient
    var grant: Grant = .delegated
    /// Where the client's tokens come from (a saved sign-in knows the user's name without asking Graph).
    var tokens: (any AccessTokenSource)?
    /// The user's defaults (`$GRAPH_ICS_CONFIG_DIR/config`).
    var config = UserConfig()

    /// Opens the session a command needs: reads the configuration (flags first, then `GRAPH_ICS_*`),
    /// reads the config file, chooses the token source (`GRAPH_ICS_ACCESS_TOKEN`, app-only with `--user`,
    /// or the saved sign-in `--account` names, else the config's `defaults.account`, else the only one)
    /// and creates the client for `/me` or `/users/{upn}`, over a transport with the time limit of
    /// `GRAPH_ICS_TIMEOUT` (see ``transport(environment:cancellation:)``). With `cancellation` (serve), its
    /// `cancel()` ends the session's requests under way and its retry waits (``RequestCancelled``).
    static func open(
        _ options: ConnectionOptions,
        need: AccessNeed,
        terminal: Terminal,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        cancellation: RequestCancellation? = nil
    ) throws -> Session {
        let configuration = try AuthConfiguration.fromEnvironment(
            environment, authority: options.authority, graphURL: options.graphURL)
        let config = try UserConfig.load(directory: configuration.configDirectory)
        let transport = try transport(environment: environment, cancellation: cancellation)
        let tokens = try TokenSourceFactory.make(
            need: need, user: options.user, account: options.account ?? config.account,
            configuration: configuration, environment: environment, transport: transport)
        var sleep: @Sendable (Duration) -> Void = GraphClient.sleep(for:)
        if let cancellation { sleep = { cancellation.sleep(for: $0) } }
        let log: (@Sendable (String) -> Void)? = options.verbose ? { @Sendable line in terminal.note(line) } : nil
        let client = GraphClient(
            baseURL: configuration.graphBaseURL,
            mailbox: options.user.map { .user($0) } ?? .me,
            transport: transport,
            tokens: tokens,
            log: log,
            // Waiting in silence looks like a hang; a script reading stderr does not need the notes.
            notice: terminal.stderrIsTerminal ? { @Sendable line in terminal.note(line) } : nil,
            sleep: sleep
        )
        let grant: Grant =
            tokens is ClientCredentialsTokenSource
            ? .application : tokens is StaticTokenSource ? .givenToken : .delegated
        return Session(
            configuration: configuration, transport: transport, client: client, grant: grant, tokens: tokens,
            config: config)
    }

    /// The longest `GRAPH_ICS_TIMEOUT` graph-ics takes, in seconds (one hour).
    static let maximumTimeout: Double = 3600

    /// The libcurl transport for Graph requests: each request may take `GRAPH_ICS_TIMEOUT` seconds (a
    /// positive number, fractions allowed, at most an hour; 120 when unset) before it counts as timed out
    /// and is retried like a dropped connection; connecting may take at most 10 seconds of that.
    /// `cancellation` ends its requests when cancelled.
    ///
    /// - Throws: `CommandFailure` with the usage status when the value is not such a number.
    static func transport(
        environment: [String: String], cancellation: RequestCancellation? = nil
    ) throws(CommandFailure) -> CurlTransport {
        guard let text = environment["GRAPH_ICS_TIMEOUT"], !text.isEmpty else {
            return CurlTransport(cancellation: cancellation)
        }
        guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)), seconds.isFinite, seconds > 0,
            seconds <= maximumTimeout
        else {
            throw CommandFailure(
                .usage,
                "GRAPH_ICS_TIMEOUT must be a number of seconds above 0 and at most \(Int(maximumTimeout)), not '\(text)'"
            )
        }
        let timeout = Duration.milliseconds(max(1, Int64((seconds * 1000).rounded())))
        return CurlTransport(
            connectTimeout: min(.seconds(10), timeout), defaultTimeout: timeout, cancellation: cancellation)
    }

    /// The zone dates and times are read and shown in: `--tz` when given, else the config's
    /// `defaults.zone`, else the mailbox's own zone (Windows or IANA name), else UTC with a warning.
    ///
    /// - Throws: `CommandFailure` (exit 77) naming `MailboxSettings.Read` and `--tz` when Graph refuses the
    ///   mailbox settings: every week boundary depends on the zone, so there is no silent fallback.
    func mailboxZone(override: ResolvedZone?, terminal: Terminal) throws -> ResolvedZone {
        if let override = override ?? config.zone { return override }
        let settings = try mailboxSettings(tzAvoidsIt: true)
        if let name = settings.timeZone, case .resolved(let zone, _) = ZoneResolver.resolve(name) {
            return zone
        }
        let what = settings.timeZone.map { "'\($0)', which graph-ics does not know" } ?? "no time zone"
        terminal.warning("the mailbox has \(what); using UTC (give one with --tz)")
        return .utc
    }

    /// The calendar a command uses: `--calendar` when given, else the config's `defaults.calendar`, else
    /// nil (the mailbox's default calendar).
    func calendar(_ given: String?) -> String? {
        given ?? config.calendar
    }

    /// The mailbox's settings (`GET …/mailboxSettings`); a 403 becomes a failure naming the permission, and
    /// `--tz` when `tzAvoidsIt`.
    func mailboxSettings(tzAvoidsIt: Bool) throws -> GraphMailboxSettings {
        do {
            return try client.mailboxSettings()
        } catch let error as GraphError where error.status == 403 {
            // Graph has no .Shared permission for mailbox settings: only app-only access reads another user's.
            let needs =
                grant != .application && client.mailbox != .me
                ? "reading another user's mailbox settings needs app-only access with the application permission "
                    + "MailboxSettings.Read"
                : "the app registration needs "
                    + permission(delegated: "MailboxSettings.Read", application: "MailboxSettings.Read")
            throw refusal(
                error, reading: "the mailbox's time zone (mailboxSettings)", needs: needs,
                hint: tzAvoidsIt ? "give --tz ZONE, which avoids the call" : nil)
        }
    }

    /// The mailbox's owner (`GET /me` or `/users/{upn}`); a 403 becomes a failure naming the permission.
    func owner() throws -> GraphUser {
        do {
            return try client.me()
        } catch let error as GraphError where error.status == 403 {
            let (who, delegated) =
                switch client.mailbox {
                case .me: ("the signed-in user", "User.Read")
                case .user(let upn): ("the user \(upn)", "User.ReadBasic.All")
                }
            throw refusal(
                error, reading: who,
                needs: "the app registration needs " + permission(delegated: delegated, application: "User.Read.All"),
                hint: nil)
        }
    }

    /// `the application permission X`, `the delegated permission Y`, or both for a given token.
    func permission(delegated: String, application: String) -> String {
        switch grant {
        case .delegated: "the delegated permission \(delegated)"
        case .application: "the application permission \(application)"
        case .givenToken:
            delegated == application
                ? "the permission \(delegated)"
                : "the permission \(delegated) (delegated) or \(application) (application)"
        }
    }

    /// One sentence for a 403: what was refused, with Graph's status and code, what it needs (a clause) and
    /// what avoids it, and the request-id; exit 77.
    func refusal(_ error: GraphError, reading what: String, needs: String, hint: String?) -> CommandFailure {
        var text = "Graph refused reading \(what) (HTTP 403"
        if let code = error.code { text += " \(code)" }
        text += "): \(needs)"
        if let hint { text += "; or \(hint)" }
        if let requestID = error.requestID { text += " [request-id \(requestID)]" }
        return CommandFailure(.notSignedIn, text)
    }
}

/// Turns what the fetch layer throws into one sentence and the exit status of the CLI contract
/// (``ExitStatus/init(for:)``).
enum FetchFailure {
    static func failure(_ error: any Error) -> CommandFailure? {
        switch error {
        case let error as AuthError:
            switch error.code {
            case .notSignedIn, .tokenRejected, .insufficientScope, .invalidGrant, .declined, .deviceCodeExpired,
                .badVerificationCode:
                // The message says what to do (sign in again); the identity platform's own text (AADSTS code,
                // trace and correlation ids, timestamp) would make it several sentences.
                return CommandFailure(ExitStatus(for: error), error.message)
            default:
                return CommandFailure(ExitStatus(for: error), error.description)
            }
        case let error as GraphError:
            return CommandFailure(ExitStatus(for: error), error.description)
        case let error as CurlError:
            return CommandFailure(ExitStatus(for: error), error.description)
        default:
            return nil
        }
    }
}
