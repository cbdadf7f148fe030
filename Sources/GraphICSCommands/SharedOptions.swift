import ICalBridge

/// The options shared by every command that talks to Microsoft Graph.
struct ConnectionOptions {
    var account: String?
    var graphURL: String?
    var authority: String?
    var user: String?
    var verbose: Bool

    /// `--account`, `--user`, `--graph-url`, `--authority`, `-v`: declared here once for every command that
    /// has them.
    struct Declarations: OptionGroup {
        var account = Option.account(
            help: "Use this saved sign-in (a name, user or key from 'graph-ics accounts'; else "
                + "defaults.account in the config file, else the only one).")
        var user = Option(
            "--user", value: "UPN",
            help: "Work on another user's mailbox: app-only sign-in with the client secret in "
                + "GRAPH_ICS_CLIENT_SECRET or GRAPH_ICS_CLIENT_SECRET_FILE."
        ).refusingEmpty("--user needs a user principal name (name@contoso.com)")
        var graphURL = Option(
            "--graph-url", value: "URL", help: "Microsoft Graph endpoint (GRAPH_ICS_GRAPH_URL), for national clouds.")
        var authority = Option("--authority", value: "URL", help: "Sign-in authority (GRAPH_ICS_AUTHORITY).")
        var verbose = Flag(
            "-v", "--verbose", help: "Log each request to stderr (method, path, status, request-id; never a token).")

        init() {}

        /// The group as `login` takes it: a person signs in, so `--user` is refused (and not shown) and
        /// nothing is logged.
        static var signIn: Declarations {
            var declarations = Declarations()
            declarations.user = declarations.user.hidden()
            declarations.account = declarations.account.hidden()
            declarations.verbose = declarations.verbose.hidden()
            declarations.authority = Option(
                "--authority", value: "URL",
                help:
                    "Sign-in authority for national clouds (GRAPH_ICS_AUTHORITY), e.g. https://login.microsoftonline.us."
            )
            return declarations
        }
    }

    /// No option given: the environment and the config file decide whose sign-in is used.
    init(user: String? = nil) {
        account = nil
        graphURL = nil
        authority = nil
        self.user = user
        verbose = false
    }

    init(_ parsed: Parsed<Declarations>) throws(UsageError) {
        account = try parsed[\.account]
        graphURL = try parsed[\.graphURL]
        authority = try parsed[\.authority]
        user = try parsed[\.user]
        verbose = parsed[\.verbose]
    }
}

extension RangeOption {
    /// `--week`, `--from`, `--to`, `--days`: declared here once for every command that shows a range of days.
    struct Declarations: OptionGroup {
        let week = Option(
            "--week", value: "WEEK",
            help: "this (the default), next, last, +2 or -1 (weeks from this one), or an ISO week such as "
                + "2026-W49. Weeks start on Monday, in the mailbox's time zone (or --tz).",
            completion: .choices(["this", "next", "last"]))
        let month = Option(
            "--month", value: "MONTH",
            help: "this, next, last, or a month such as 2026-12, in the mailbox's time zone (or --tz).",
            completion: .choices(["this", "next", "last"]))
        let from = Option(
            "--from", value: "DATE",
            help: "First day: YYYY-MM-DD, today, tomorrow, yesterday, mon … sun (the next one, today included), "
                + "+3d, -1w or +1m (from today).")
        let to = Option(
            "--to", value: "DATE",
            help: "Day after the last one (exclusive), as --from takes it; +7d, +2w or +1m count from --from.")
        let days = Option("--days", value: "N", help: "Show N days, from --from or else from today.")
    }

    init(_ parsed: Parsed<Declarations>) throws(UsageError) {
        let week = try parsed[\.week]
        let from = try parsed[\.from]
        let to = try parsed[\.to]
        let days = try parsed[\.days].map { (text) throws(UsageError) in try Self.dayCount(text) }
        if let month = try parsed[\.month] {
            guard week == nil, from == nil, to == nil, days == nil else {
                throw UsageError("give either --month or --week, --from, --to and --days, not both")
            }
            self = .month(month)
            return
        }
        switch (week, from, to, days) {
        case (let week?, nil, nil, nil): self = .week(week)
        case (nil, let from?, let to?, nil): self = .dates(from: from, to: to)
        case (nil, let from, nil, let days?): self = .days(from: from, count: days)
        case (nil, nil, nil, nil): self = .week("this")
        case (nil, _, _?, _?): throw UsageError("give --to or --days, not both")
        case (nil, _?, nil, nil): throw UsageError("--from needs --to or --days (--from today --to +7d)")
        case (nil, nil, _?, nil): throw UsageError("--to needs --from (--from today --to +7d)")
        default: throw UsageError("give either --week or --from, --to and --days, not both")
        }
    }

    /// `--days N`: 1 to 36 600 days (about a hundred years).
    static func dayCount(_ text: String) throws(UsageError) -> Int {
        guard text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int(text),
            (1...36_600).contains(count)
        else { throw UsageError("--days '\(text)' is not a number of days (1 or more, such as --days 7)") }
        return count
    }
}

extension Option where Value == ResolvedZone {
    /// `--tz ZONE`: an IANA or Windows zone name, resolved here for every command that takes one; `help`
    /// says what the command does with it.
    static func zone(help: String) -> Option {
        Option(spec: OptionSpec(long: "--tz", valueName: "ZONE", help: help)) {
            (name: String) throws(UsageError) -> ResolvedZone in
            guard case .resolved(let zone, _) = ZoneResolver.resolve(name) else {
                throw UsageError("--tz '\(name)' is not a time zone (use an IANA name such as Europe/Berlin)")
            }
            return zone
        }
    }
}

extension Option where Value == String {
    /// `-o, --output FILE`: where a command writes its data.
    static var output: Option {
        Option(
            "-o", "--output", value: "FILE", help: "Write to FILE ('-' for standard output, the default).",
            completion: .file
        ).refusingEmpty("-o needs a file name or '-'")
    }

    /// `--account NAME|UPN`: which saved sign-in a command uses; `help` says how it is chosen without it.
    static func account(help: String) -> Option {
        Option("--account", value: "NAME|UPN", help: help)
            .refusingEmpty("--account needs the name, user or key of a saved sign-in (see 'graph-ics accounts')")
    }

    /// `--calendar NAME|ID`; `help` says what the command does with that calendar.
    static func calendar(help: String) -> Option {
        Option("--calendar", value: "NAME|ID", help: help)
    }
}

/// What a command that reports on the mailbox takes (`whoami`, `calendars`): no operands, the connection
/// options and `--json`.
struct ReportOptions {
    var connection: ConnectionOptions
    var json: Bool

    struct Declarations: OptionGroup {
        var json = Flag("--json", help: "Print JSON on standard output.")
        let connection = ConnectionOptions.Declarations()

        init() {}

        /// `help` says what `--json` prints.
        init(json help: String) {
            json = Flag("--json", help: help)
        }
    }

    init(_ parsed: Parsed<Declarations>, command: String) throws(UsageError) {
        guard parsed.positionals.isEmpty else { throw UsageError("\(command) takes no arguments") }
        connection = try ConnectionOptions(parsed.group(\.connection))
        json = parsed[\.json]
    }
}
