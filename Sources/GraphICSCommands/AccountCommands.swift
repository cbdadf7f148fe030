import Foundation
import GraphICS
import ICalBridge

/// `graph-ics login`: signs in with the device code flow (no browser on this machine needed) and saves the
/// tokens for the other commands.
struct LoginCommand: Command {
    static let name = "login"
    static let abstract = "Sign in to Microsoft 365 / Outlook.com (device code; no browser needed here)."
    static let synopsis = ["[--name NAME] [--tenant T] [--client-id ID] [--read-only] [--authority URL]"]
    static let discussion = """
        Signs in with the device code flow: graph-ics prints a web address and a code; open the address
        on any device, enter the code and sign in there. The tokens are saved in
        $GRAPH_ICS_CONFIG_DIR (default $XDG_CONFIG_HOME/graph-ics, else ~/.config/graph-ics): the folder
        is readable by you only (0700), each file too (0600). Tokens are never printed. Sign in
        once per account; choose one with --account (or 'graph-ics accounts default NAME').

        graph-ics needs an app registration in Microsoft Entra ID (see the README): a public client
        ("Allow public client flows" on) with the delegated permissions User.Read,
        MailboxSettings.Read and Calendars.ReadWrite (or Calendars.Read). Give its id with --client-id
        or GRAPH_ICS_CLIENT_ID.
        """
    static let epilogue = """
        Exit status: 0 signed in, 64 usage (a --name another sign-in has, or a second name for the
        same user), 69 the sign-in service could not be reached, 73 the configuration folder cannot
        be written (checked before the sign-in), 77 sign-in declined, expired or refused.
        """

    struct Options: OptionGroup {
        let name = Option(
            "--name", value: "NAME", help: "A short name for this sign-in, for --account (such as 'work')."
        ).refusingEmpty("--name needs a name for the sign-in, such as 'work'")
        let tenant = Option(
            "--tenant", value: "T",
            help: "Directory (tenant) id or domain, 'organizations', 'consumers' or 'common' (the default; "
                + "GRAPH_ICS_TENANT).")
        let clientID = Option(
            "--client-id", value: "ID",
            help: "The application (client) id of the app registration (GRAPH_ICS_CLIENT_ID).")
        let readOnly = Flag(
            "--read-only",
            help: "Ask only to read calendars (export, agenda); import and add then need another login.")
        let connection = ConnectionOptions.Declarations.signIn
    }

    var name: String?
    var tenant: String?
    var clientID: String?
    var readOnly: Bool
    var connection: ConnectionOptions

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        guard parsed.positionals.isEmpty else { throw UsageError("login takes no arguments") }
        name = try parsed[\.name]
        tenant = try parsed[\.tenant]
        clientID = try parsed[\.clientID]
        readOnly = parsed[\.readOnly]
        connection = try ConnectionOptions(parsed.group(\.connection))
        if connection.user != nil {
            throw UsageError("--user is for app-only access with a client secret; login signs in a person")
        }
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        let configuration = try AuthConfiguration.fromEnvironment(
            authority: connection.authority, tenant: tenant, clientID: clientID, graphURL: connection.graphURL)
        let store = TokenStore(configuration: configuration)
        try checkBeforeSignIn(configuration, store)
        let transport = try Session.transport(environment: ProcessInfo.processInfo.environment)
        let signIn = DeviceCodeSignIn(
            configuration: configuration, need: readOnly ? .read : .write, transport: transport)
        var account = try signIn.signIn { prompt in
            terminal.err(
                prompt.message.isEmpty
                    ? "To sign in, open \(prompt.verificationURI) and enter the code \(prompt.userCode)"
                    : prompt.message)
            terminal.err("Waiting for you to finish signing in there (Ctrl-C to give up)…")
        }
        // Learn whom the tokens belong to, for whoami and for the message below.
        let client = GraphClient(
            baseURL: configuration.graphBaseURL, transport: transport,
            tokens: StaticTokenSource(token: account.accessToken))
        if let me = try? client.me() {
            account.userName = me.userPrincipalName ?? me.mail ?? me.displayName
        }
        account.name = name
        try save(account, in: store)
        let who = account.userName.map { " as \($0)" } ?? ""
        terminal.note("signed in\(who); the sign-in is saved in \(store.directory.path)")
        return .ok
    }

    /// What can be refused before the person goes through the browser step: a configuration folder graph-ics
    /// cannot write in, and a `--name` that a sign-in made elsewhere (another tenant, app registration or
    /// authority) already has, which this sign-in therefore cannot be renewing.
    func checkBeforeSignIn(_ configuration: AuthConfiguration, _ store: TokenStore) throws {
        do {
            try store.checkWritable()
        } catch {
            throw CommandFailure(
                .cannotCreateOutput,
                "\(error.message) Nothing was signed in: make the folder writable, or set GRAPH_ICS_CONFIG_DIR "
                    + "to another one.")
        }
        guard let name, let clientID = configuration.clientID else { return }
        let here = AccountTokens.accountKey(
            authority: configuration.resolvedAuthority, tenant: configuration.resolvedTenant, clientID: clientID)
        if let other = try store.list().first(where: { $0.name?.lowercased() == name.lowercased() }),
            AccountTokens.accountKey(authority: other.authority, tenant: other.tenant, clientID: other.clientID)
                != here
        {
            throw Self.nameTaken(name, by: other)
        }
    }

    static func nameTaken(_ name: String, by other: AccountTokens) -> CommandFailure {
        CommandFailure(
            .usage,
            "the saved sign-in \(other.userName ?? other.accountKey) is already named '\(name)'; nothing was "
                + "saved: sign in again with another --name (or 'graph-ics logout --account \(name)' first)")
    }

    /// Saves the sign-in under a key naming its user, so that another person's sign-in with the same app
    /// registration and tenant stays; a sign-in of the same user saved before graph-ics kept several (a
    /// key without a user) is replaced.
    func save(_ account: AccountTokens, in store: TokenStore) throws {
        var account = account
        account.keyUser = account.userName?.lowercased()
        let saved = try store.list()
        if let name, let other = saved.first(where: { $0.name?.lowercased() == name.lowercased() }),
            other.accountKey != account.accountKey
        {
            throw Self.nameTaken(name, by: other)
        }
        // The same user signing in again keeps the name it has: --account NAME must go on working.
        if let same = saved.first(where: { $0.accountKey == account.accountKey }), let existing = same.name {
            if let name, name.lowercased() != existing.lowercased() {
                throw CommandFailure(
                    .usage,
                    "\(same.userName ?? same.accountKey) is already signed in as '\(existing)'; nothing was saved: "
                        + "sign in again with --name \(existing) (or without --name), or 'graph-ics logout "
                        + "--account \(existing)' first")
            }
            account.name = existing
        }
        try store.save(account)
        let older = AccountTokens.accountKey(
            authority: account.authority, tenant: account.tenant, clientID: account.clientID)
        guard older != account.accountKey, let old = try? store.load(accountKey: older) else { return }
        if old.userName == nil || old.userName?.lowercased() == account.keyUser {
            try store.delete(accountKey: older)
        }
    }
}

/// `graph-ics logout`: forgets saved sign-ins.
struct LogoutCommand: Command {
    static let name = "logout"
    static let abstract = "Forget a saved sign-in (delete its tokens from this machine)."
    static let synopsis = ["[--account NAME|UPN | --all | --tenant T | --client-id ID]"]
    static let discussion = """
        Deletes saved sign-ins from graph-ics's configuration folder: the one --account names, every
        one (--all), or those of the given tenant and client id. Without any of them it deletes the
        only one; when there are several it lists them and asks which on a terminal (elsewhere it
        stops: give --account or --all). When defaults.account in the config file names a sign-in
        removed, it is unset. The tokens stop working on this machine at once; to end the sign-in
        everywhere, sign out at https://myaccount.microsoft.com.
        """

    struct Options: OptionGroup {
        let account = Option.account(help: "Only this saved sign-in (a name, user or key from 'graph-ics accounts').")
        let all = Flag("--all", help: "Every saved sign-in.")
        let tenant = Option("--tenant", value: "T", help: "Only the sign-ins for this tenant.")
        let clientID = Option("--client-id", value: "ID", help: "Only the sign-ins made with this app registration.")
    }

    var account: String?
    var all: Bool
    var tenant: String?
    var clientID: String?

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        guard parsed.positionals.isEmpty else { throw UsageError("logout takes no arguments") }
        account = try parsed[\.account]
        all = parsed[\.all]
        tenant = try parsed[\.tenant]
        clientID = try parsed[\.clientID]
        if all && (account != nil || tenant != nil || clientID != nil) {
            throw UsageError("--all removes every saved sign-in; give it alone")
        }
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        let configuration = try AuthConfiguration.fromEnvironment(tenant: tenant, clientID: clientID)
        let store = TokenStore(configuration: configuration)
        let removed: Int
        var gone: [AccountTokens]
        if all {
            gone = (try? store.list()) ?? []
            // By file name: a damaged token file must not stop a logout.
            removed = try store.deleteAll()
        } else {
            guard let chosen = try chosen(configuration, store, terminal) else {
                terminal.note("nothing removed")
                return .ok
            }
            gone = []
            for account in chosen {
                if try store.delete(accountKey: account.accountKey) { gone.append(account) }
            }
            removed = gone.count
        }
        if removed == 0 {
            terminal.note("no saved sign-in to remove in \(store.directory.path)")
        } else {
            terminal.note("signed out: removed \(removed) saved sign-in\(removed == 1 ? "" : "s")")
        }
        forgetDefault(all: all, gone: gone, in: configuration.configDirectory, terminal)
        DavCommand.warnOfLogins(of: gone, all: all && removed > 0, in: configuration.configDirectory, terminal)
        return .ok
    }

    /// Unsets `defaults.account` when it names a sign-in just removed (or every one was): left set, it would
    /// make every command fail although another sign-in remains.
    /// The sign-ins are gone whatever happens here: a config file that cannot be read or written is a warning.
    private func forgetDefault(all: Bool, gone: [AccountTokens], in directory: URL, _ terminal: Terminal) {
        do {
            var config = try UserConfig.load(directory: directory)
            guard let name = config.account, all || gone.contains(where: { $0.isNamed(name) }) else { return }
            _ = try config.unset("defaults.account")
            try config.save(directory: directory)
            terminal.note("defaults.account named '\(name)'; it is unset now (see 'graph-ics accounts default NAME')")
        } catch {
            terminal.warning("defaults.account was not checked: \(error)")
        }
    }

    /// The sign-ins to remove: `--account`'s, those of `--tenant`/`--client-id`, else the only one; with
    /// several, the one chosen on the terminal (nil: none).
    private func chosen(_ configuration: AuthConfiguration, _ store: TokenStore, _ terminal: Terminal) throws
        -> [AccountTokens]?
    {
        let candidates = try TokenSourceFactory.matching(configuration, in: store)
        if let account { return [try TokenSourceFactory.account(named: account, among: candidates)] }
        if tenant != nil || clientID != nil || candidates.count <= 1 { return candidates }
        guard terminal.stdinIsTerminal else {
            throw CommandFailure(
                .usage,
                "there are \(candidates.count) saved sign-ins (\(TokenSourceFactory.names(candidates))); choose one "
                    + "with --account NAME, or remove them all with --all")
        }
        return Self.ask(among: candidates, terminal)
    }

    /// Lists the sign-ins numbered on standard error and asks which to remove: a number, a name or user,
    /// `all`, or nothing (nil) to keep them; an answer that names none is asked again.
    static func ask(among candidates: [AccountTokens], _ terminal: Terminal) -> [AccountTokens]? {
        terminal.err("There are \(candidates.count) saved sign-ins:")
        for (index, account) in candidates.enumerated() {
            let user = account.name != nil ? account.userName.map { " (\($0))" } ?? "" : ""
            terminal.err("  \(index + 1)  \(account.displayName)\(user), tenant \(account.tenant)")
        }
        while true {
            let answer = terminal.answer(to: "Remove which? (a number or name, 'all', or Enter to keep them) ")
            if answer.isEmpty { return nil }
            if answer == "all" { return candidates }
            if let number = Int(answer), candidates.indices.contains(number - 1) { return [candidates[number - 1]] }
            let named = candidates.filter { $0.isNamed(answer) }
            if named.count == 1 { return named }
            terminal.err("'\(answer)' names none of them (or several); give its number.")
        }
    }
}

/// `graph-ics whoami`: who is signed in, and in which time zone their mailbox lives.
struct WhoAmICommand: Command {
    static let name = "whoami"
    static let abstract = "Show who is signed in and the mailbox's time zone."
    static let synopsis = ["[--user UPN] [--json]"]
    static let discussion = """
        Shows the signed-in user (or the --user mailbox): display name, mail address or user
        principal name, and the mailbox's time zone as Outlook names it and as IANA names it.
        """
    static let epilogue = """
        Exit status: 0 ok, 69 Graph unavailable, 77 not signed in or no permission.
        """

    struct Options: OptionGroup {
        let report = ReportOptions.Declarations(json: "Print the same as a JSON object on standard output.")
    }

    var report: ReportOptions

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        report = try ReportOptions(parsed.group(\.report), command: Self.name)
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        let session = try Session.open(report.connection, need: .read, terminal: terminal)
        let me = try session.owner()
        let settings = try session.mailboxSettings(tzAvoidsIt: false)
        var iana: String?
        if let name = settings.timeZone, case .resolved(let zone, _) = ZoneResolver.resolve(name) {
            iana = zone.name
        }
        if report.json {
            var object: [String: String] = ["id": me.id]
            object["displayName"] = me.displayName
            object["mail"] = me.mail
            object["userPrincipalName"] = me.userPrincipalName
            object["timeZone"] = settings.timeZone
            object["ianaTimeZone"] = iana
            terminal.out(try JSONOutput.text(.object(object.mapValues { .string($0) })))
            return .ok
        }
        var lines: [String] = []
        let address = me.mail ?? me.userPrincipalName ?? ""
        lines.append(
            [me.displayName ?? "", address.isEmpty ? "" : "<\(address)>"].filter { !$0.isEmpty }.joined(separator: " "))
        if let upn = me.userPrincipalName, upn != me.mail { lines.append("user principal name: \(upn)") }
        switch (settings.timeZone, iana) {
        case (let windows?, let iana?) where windows != iana: lines.append("time zone: \(windows) (\(iana))")
        case (let name?, _): lines.append("time zone: \(name)")
        case (nil, _): lines.append("time zone: not set in the mailbox (graph-ics uses UTC unless --tz says)")
        }
        terminal.out(lines.joined(separator: "\n") + "\n")
        return .ok
    }
}

/// `graph-ics calendars`: the calendars of the mailbox, for `--calendar`.
struct CalendarsCommand: Command {
    static let name = "calendars"
    static let abstract = "List the mailbox's calendars (name, id, default, can edit)."
    static let synopsis = ["[--user UPN] [--json]"]
    static let discussion = """
        Lists the calendars of the mailbox: name, whether it is the default one, whether you may add
        events to it, and its id. Give a name or an id to --calendar of export, import, agenda, add.
        """
    static let epilogue = """
        Exit status: 0 ok, 69 Graph unavailable, 77 not signed in or no permission.
        """

    struct Options: OptionGroup {
        let report = ReportOptions.Declarations(
            json: "Print Graph's calendar objects as {\"value\": [...]} on standard output.")
    }

    var report: ReportOptions

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        report = try ReportOptions(parsed.group(\.report), command: Self.name)
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        let session = try Session.open(report.connection, need: .read, terminal: terminal)
        let calendars = try session.client.calendars()
        if report.json {
            // Every key in every object, null where Graph gave none, as every --json is written.
            let objects: [JSONValue] = calendars.map { calendar in
                .object([
                    "id": .string(calendar.id), "name": .string(calendar.name),
                    "isDefaultCalendar": calendar.isDefaultCalendar.map { .bool($0) } ?? .null,
                    "canEdit": calendar.canEdit.map { .bool($0) } ?? .null,
                    "owner": calendar.owner.map { owner in
                        .object(["name": .string(owner.name), "address": .string(owner.address)])
                    } ?? .null,
                    "hexColor": .string(calendar.hexColor),
                ])
            }
            terminal.out(try JSONOutput.text(.object(["value": .array(objects)])))
            return .ok
        }
        let width = min(40, calendars.map { ($0.name ?? "").count }.max() ?? 0)
        for calendar in calendars {
            // Pad short names into a column, but never cut a long one: it must work with --calendar as shown.
            let label = calendar.name ?? "(no name)"
            let name = label.count >= width ? label : label.padding(toLength: width, withPad: " ", startingAt: 0)
            let flags = [
                calendar.isDefaultCalendar == true ? "default" : "",
                calendar.canEdit == false ? "read-only" : "",
            ].filter { !$0.isEmpty }.joined(separator: ", ")
            terminal.out("\(name)  \(flags.padding(toLength: 18, withPad: " ", startingAt: 0))  \(calendar.id)\n")
        }
        return .ok
    }
}
