import Foundation
import GraphICS
import GraphICSDAV
import GraphICSServe
import ICalBridge

/// `graph-ics dav add|list|remove|rotate`: the CalDAV logins `graph-ics serve` answers under `/dav/`, kept
/// in `$GRAPH_ICS_CONFIG_DIR/dav.json` (``DAVLoginStore``). Only `add` talks to Graph: it binds the login to
/// a saved sign-in, records the mailbox and resolves `--calendar`.
struct DavCommand: Command {
    static let name = "dav"
    static let abstract = "Define the CalDAV logins 'graph-ics serve' answers (add, list, remove, rotate)."
    static let synopsis = [
        "add USER [--account NAME] [--calendar NAME|ID]... [--read-only]",
        "    [--invitations send|refuse] [--past DAYS] [--future DAYS] [--json]",
        "list [--json]",
        "remove USER",
        "rotate USER [--json]",
    ]
    static let discussion = """
        A login lets a calendar app (Apple Calendar, Thunderbird, Evolution, DAVx5, vdirsyncer) read
        and write Outlook over CalDAV through 'graph-ics serve', which answers under /dav/ of its
        address (and /.well-known/caldav) as soon as one login exists. Each device can have its own
        login, so one lost phone is one revoked password.

        add: a new login USER (letters, digits, '.', '_', '-' and '@', at most 64) bound to one saved
        sign-in: --account, else defaults.account in the config file, else the only one. A login
        needs a sign-in serve can refresh, so with no saved sign-in it exits 77 (run 'graph-ics
        login'), and GRAPH_ICS_ACCESS_TOKEN or app-only --user are refused (64). It serves every
        calendar the account can read, calendars added later included, or only the --calendar ones
        (names or ids, checked now as 'export --calendar' checks them: an unknown name exits 66 with
        the list). Events from --past days ago to --future days ahead are listed. --read-only
        refuses every change. --invitations refuse (the default) refuses changes that would mail
        attendees (a meeting you organise: new, changed or deleted) and answers invitations without
        a reply mail; --invitations send lets them through.
        It prints the URL (from serve's --base-url, as 'feed list' does), the user and a random
        password of 130 bits, as 'url: ...', 'user: ...' and 'password: ...' lines (--json: an
        object with url, user and password). The password is shown only here and by rotate: it is
        kept only as a hash.
        list: each login's user, sign-in, calendars, access and invitation setting, and the URL
        (--json: as JSON). Never a password.
        remove: the login stops working for the next request.
        rotate: a new password, printed as add prints it; the old one is refused for any request
        that starts after the command has exited, without restarting serve.
        """
    static let epilogue = """
        Examples:
          graph-ics dav add phone
          graph-ics dav add laptop --calendar Calendar --calendar Team --invitations send
          graph-ics dav list

        Exit status: 0 ok, 1 a login of that name exists already (add), 64 usage (a bad name
        included, GRAPH_ICS_ACCESS_TOKEN, --user, or two calendars of that name), 66 no login of
        that name (remove, rotate) or no such calendar (add), 74 dav.json cannot be read or
        written, 77 no saved sign-in to bind the login to (add).
        """
    static let operands: ValueCompletion? = .choices(["add", "list", "remove", "rotate"])

    enum Action: String, CaseIterable {
        case add, list, remove, rotate
    }

    struct Options: OptionGroup {
        let account = Option.account(
            help: "add: bind the login to this saved sign-in (a name, user or key from 'graph-ics accounts'; else "
                + "defaults.account in the config file, else the only one).")
        let calendar = Option.calendar(
            help: "add: serve only this calendar (a name or an id, see 'graph-ics calendars'; repeatable); every "
                + "calendar otherwise, later ones included."
        ).refusingEmpty("--calendar needs a calendar name or id").repeatable()
        let readOnly = Flag("--read-only", help: "add: the login may read but change nothing.")
        let invitations = Option<DAVInvitations>(
            "--invitations", value: "send|refuse",
            help: "add: whether changes that mail attendees go through (send) or get 403 (refuse)."
        ).defaulting(to: .refuse).option
        let past = Defaulted<Int>.days(
            "--past", default: DAVLogin.defaultPastDays, help: "add: list the events from this many days ago."
        ).option
        let future = Defaulted<Int>.days(
            "--future", default: DAVLogin.defaultFutureDays, help: "add: list the events up to this many days ahead."
        ).option
        let json = Flag(
            "--json", help: "add, rotate: print url, user and password as a JSON object; list: the logins as JSON.")
        /// Refused: a login needs a saved sign-in, not app-only access.
        let user = Option("--user", value: "UPN", help: "").hidden()
        // `--graph-url`, `--authority`, `-v` for add's requests, as other commands take them.
        let graphURL = ConnectionOptions.Declarations().graphURL
        let authority = ConnectionOptions.Declarations().authority
        let verbose = ConnectionOptions.Declarations().verbose
    }

    var action: Action
    var user: String?
    var account: String?
    var calendars: [String] = []
    var readOnly = false
    var invitations = DAVInvitations.refuse
    var pastDays = DAVLogin.defaultPastDays
    var futureDays = DAVLogin.defaultFutureDays
    var json: Bool
    var connection: ConnectionOptions

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        guard let word = parsed.positionals.first else {
            throw UsageError("dav needs what to do: add, list, remove or rotate")
        }
        guard let action = Action(rawValue: word) else {
            throw UsageError(
                "dav add, list, remove or rotate, not '\(word)'"
                    + Suggestion.hint(for: word, among: Action.allCases.map(\.rawValue)))
        }
        self.action = action
        let operands = parsed.positionals.dropFirst()
        json = parsed[\.json]
        if json && action == .remove { throw UsageError("--json goes with 'dav add', 'dav list' and 'dav rotate'") }
        if try parsed[\.user] != nil {
            throw UsageError(
                "a CalDAV login needs a saved sign-in that serve can refresh; app-only --user cannot be one "
                    + "(sign in with 'graph-ics login' and give --account)")
        }
        account = try parsed[\.account]
        calendars = try parsed[\.calendar]
        readOnly = parsed[\.readOnly]
        let invitations = try parsed[\.invitations]
        let past = try parsed[\.past]
        let future = try parsed[\.future]
        connection = ConnectionOptions()
        connection.account = account
        connection.graphURL = try parsed[\.graphURL]
        connection.authority = try parsed[\.authority]
        connection.verbose = parsed[\.verbose]
        if action != .add
            && (account != nil || !calendars.isEmpty || readOnly || invitations != nil || past != nil || future != nil
                || connection.graphURL != nil || connection.authority != nil)
        {
            throw UsageError("--account, --calendar, --read-only, --invitations, --past and --future go with 'dav add'")
        }
        self.invitations = invitations ?? .refuse
        pastDays = past ?? DAVLogin.defaultPastDays
        futureDays = future ?? DAVLogin.defaultFutureDays
        switch action {
        case .list:
            guard operands.isEmpty else { throw UsageError("dav list takes no user") }
        case .add, .remove, .rotate:
            guard let user = operands.first else { throw UsageError("dav \(word) needs the login's USER") }
            guard operands.count == 1 else { throw UsageError("dav \(word) takes one USER, not \(operands.count)") }
            guard DAVLogin.isValidUser(user) else {
                throw UsageError(
                    "'\(user)' cannot name a CalDAV login: use at most 64 letters, digits, '.', '_', '-' and '@'")
            }
            self.user = user
        }
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        let directory = try ConfigDirectory.url()
        let store = DAVLoginStore(path: DAVLoginStore.path(configDirectory: directory.path))
        do {
            switch action {
            case .add: try add(store, directory: directory, terminal)
            case .list: try list(store, directory: directory, terminal)
            case .remove: try remove(store, terminal)
            case .rotate: try rotate(store, directory: directory, terminal)
            }
        } catch let error as DAVLoginError {
            throw CommandFailure(.ioError, error.description)
        }
        return .ok
    }

    // MARK: - Actions

    private func add(_ store: DAVLoginStore, directory: URL, _ terminal: Terminal) throws {
        guard let user else { return }
        let environment = ProcessInfo.processInfo.environment
        if StaticTokenSource.fromEnvironment(environment) != nil {
            throw CommandFailure(
                .usage,
                "a CalDAV login needs a saved sign-in that serve can refresh, and GRAPH_ICS_ACCESS_TOKEN cannot be "
                    + "refreshed; unset it, sign in with 'graph-ics login' and run 'graph-ics dav add' again")
        }
        // A taken name is refused before anything is asked of Graph (and again under the lock).
        if try store.load().contains(where: { $0.user == user }) { throw Self.exists(user) }
        let session = try Session.open(connection, need: readOnly ? .read : .write, terminal: terminal)
        guard let tokens = session.tokens as? RefreshingTokenSource else {
            throw CommandFailure(.notSignedIn, "a CalDAV login needs a saved sign-in; run 'graph-ics login'")
        }
        // Asks Graph who is signed in when the sign-in does not say, and records it there.
        let mailbox = try SyncCommand.account(session, user: nil)
        let saved = tokens.currentAccount
        let chosen = try resolveCalendars(session)
        let password = DAVPassword.generate()
        let login = DAVLogin(
            user: user, account: saved.name ?? saved.userName ?? saved.accountKey, mailbox: mailbox,
            calendars: chosen, readOnly: readOnly, invitations: invitations, pastDays: pastDays,
            futureDays: futureDays, passwordHash: DAVPassword.hash(password), created: Date())
        try store.update { logins in
            guard !logins.contains(where: { $0.user == user }) else { throw Self.exists(user) }
            logins.append(login)
        }
        try show(user: user, password: password, directory: directory, terminal)
        terminal.note(
            "added CalDAV login \(user) for \(mailbox) (\(Self.describe(login))); the password is shown only now")
    }

    /// The `--calendar` values as calendars of the mailbox (ids and names), resolved as `export --calendar`
    /// resolves them; nil without any.
    private func resolveCalendars(_ session: Session) throws -> [DAVLoginCalendar]? {
        guard !calendars.isEmpty else { return nil }
        var chosen: [DAVLoginCalendar] = []
        for given in calendars {
            guard let id = try CalendarChoice.id(for: given, in: session.client) else { continue }
            guard !chosen.contains(where: { $0.id == id }) else { continue }
            let name = try session.client.calendars().first { $0.id == id }?.name ?? given
            chosen.append(DAVLoginCalendar(id: id, name: name))
        }
        return chosen
    }

    private func list(_ store: DAVLoginStore, directory: URL, _ terminal: Terminal) throws {
        let logins = try store.load()
        let url = Self.url(directory: directory)
        if json {
            let entries: [JSONValue] = logins.map { login in
                .object([
                    "user": .string(login.user), "account": .string(login.account),
                    "mailbox": JSONValue.string(login.mailbox),
                    "calendars": login.calendars.map { calendars in
                        .array(calendars.map { .object(["id": .string($0.id), "name": .string($0.name)]) })
                    } ?? .null,
                    "readOnly": .bool(login.readOnly), "invitations": .string(login.invitations.rawValue),
                    "pastDays": .int(login.pastDays), "futureDays": .int(login.futureDays),
                    "created": .string(ISO8601DateFormatter().string(from: login.created)), "url": .string(url),
                ])
            }
            terminal.out(try JSONOutput.text(.array(entries)))
            return
        }
        guard !logins.isEmpty else {
            terminal.note("no CalDAV logins yet; add one with 'graph-ics dav add USER'")
            return
        }
        let rows =
            [["USER", "ACCOUNT", "CALENDARS", "ACCESS", "INVITATIONS", "URL"]]
            + logins.map { login in
                [
                    login.user, login.account, login.calendars.map { $0.map(\.name).joined(separator: ",") } ?? "(all)",
                    login.readOnly ? "read-only" : "read-write", login.invitations.rawValue, url,
                ]
            }
        terminal.out(FeedCommand.table(rows))
    }

    private func remove(_ store: DAVLoginStore, _ terminal: Terminal) throws {
        guard let user else { return }
        try store.update { logins in
            guard let index = logins.firstIndex(where: { $0.user == user }) else { throw Self.unknown(user) }
            logins.remove(at: index)
        }
        terminal.note("removed CalDAV login \(user); serve refuses it from the next request")
    }

    private func rotate(_ store: DAVLoginStore, directory: URL, _ terminal: Terminal) throws {
        guard let user else { return }
        let password = DAVPassword.generate()
        try store.update { logins in
            guard let index = logins.firstIndex(where: { $0.user == user }) else { throw Self.unknown(user) }
            logins[index].passwordHash = DAVPassword.hash(password)
        }
        try show(user: user, password: password, directory: directory, terminal)
        terminal.note("gave CalDAV login \(user) a new password; serve refuses the old one from the next request")
    }

    // MARK: - Output

    /// `url: …`, `user: …`, `password: …` on stdout, or the JSON object of the three.
    private func show(user: String, password: String, directory: URL, _ terminal: Terminal) throws {
        let url = Self.url(directory: directory)
        if json {
            terminal.out(
                try JSONOutput.text(
                    .object(["url": .string(url), "user": .string(user), "password": .string(password)])))
        } else {
            terminal.out("url: \(url)\nuser: \(user)\npassword: \(password)\n")
        }
    }

    /// `<base URL>/dav/`: serve's `--base-url` as it last stored it in feeds.json (as `feed list` uses it),
    /// else the default address.
    static func url(directory: URL) -> String {
        var base = (try? FeedStore(directory: directory).load().baseURL) ?? nil ?? FeedConfiguration.defaultBaseURL
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/dav/"
    }

    /// `all calendars, read-write, invitations refused`.
    static func describe(_ login: DAVLogin) -> String {
        let calendars =
            login.calendars.map { "calendar" + ($0.count == 1 ? " " : "s ") + $0.map(\.name).joined(separator: ", ") }
            ?? "all calendars"
        let invitations = login.invitations == .send ? "invitations sent" : "invitations refused"
        return "\(calendars), \(login.readOnly ? "read-only" : "read-write"), \(invitations)"
    }

    static func exists(_ user: String) -> CommandFailure {
        CommandFailure(
            .partlyFailed,
            "a CalDAV login named '\(user)' exists already; 'graph-ics dav rotate \(user)' gives it a new password, "
                + "or choose another name")
    }

    static func unknown(_ user: String) -> CommandFailure {
        CommandFailure(.inputMissing, "no CalDAV login named '\(user)' (see 'graph-ics dav list')")
    }

    /// After `logout`: a warning naming the CalDAV logins bound to a sign-in just removed (every login when
    /// `all`); serve refuses their changes until the account signs in again. The logins stay. A dav.json
    /// that cannot be read is a warning too: the sign-ins are gone whatever happens here.
    static func warnOfLogins(of gone: [AccountTokens], all: Bool, in directory: URL, _ terminal: Terminal) {
        guard all || !gone.isEmpty else { return }
        let logins: [DAVLogin]
        do {
            logins = try DAVLoginStore(path: DAVLoginStore.path(configDirectory: directory.path)).load()
        } catch {
            terminal.warning("the CalDAV logins were not checked: \(error)")
            return
        }
        let bound = logins.filter { login in all || gone.contains { $0.isNamed(login.account) } }
        guard !bound.isEmpty else { return }
        let names = bound.map { "'\($0.user)' (sign-in \($0.account))" }.joined(separator: ", ")
        let one = bound.count == 1
        terminal.warning(
            "the CalDAV login\(one ? "" : "s") \(names) use\(one ? "s" : "") a sign-in just removed: serve cannot "
                + "reach Outlook for \(one ? "it" : "them") until you sign in again with 'graph-ics login --name "
                + "NAME' (or remove \(one ? "it" : "them") with 'graph-ics dav remove USER')")
    }
}
