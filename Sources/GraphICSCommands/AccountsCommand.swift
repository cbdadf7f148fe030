import Foundation
import GraphICS
import ICalBridge

/// `graph-ics accounts`: the saved sign-ins, and which one commands use without `--account`.
struct AccountsCommand: Command {
    static let name = "accounts"
    static let abstract = "List the saved sign-ins, or choose the default one."
    static let synopsis = ["[--json]", "default NAME|UPN"]
    static let discussion = """
        Lists the sign-ins saved by 'graph-ics login': the default one marked '*', its user (and
        name), tenant, the scopes granted, and when its refresh token was last used. Give
        one of them to --account of any command that talks to Graph.

        'graph-ics accounts default NAME' makes NAME the default: it sets defaults.account in the
        config file. Without a default, a command uses the only saved sign-in, and asks which one
        when there are several.
        """
    static let epilogue = """
        Exit status: 0 ok, 64 usage (no such sign-in), 74 the token store or config file cannot be read.
        """

    struct Options: OptionGroup {
        let json = Flag("--json", help: "Print the sign-ins as a JSON array on standard output (never a token).")
    }

    var json: Bool
    /// The sign-in `default NAME` names.
    var newDefault: String?

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        json = parsed[\.json]
        let words = parsed.positionals
        guard let first = words.first else {
            newDefault = nil
            return
        }
        guard first == "default", words.count <= 2 else {
            throw UsageError("accounts takes no arguments, or 'default NAME'")
        }
        guard words.count == 2 else { throw UsageError("'accounts default' needs the name or user of a saved sign-in") }
        newDefault = words[1]
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        let environment = ProcessInfo.processInfo.environment
        let configuration = try AuthConfiguration.fromEnvironment(environment)
        let store = TokenStore(configuration: configuration)
        let accounts = try store.list()
        var config = try UserConfig.load(directory: configuration.configDirectory)
        if let newDefault {
            let account: AccountTokens
            do {
                account = try TokenSourceFactory.account(named: newDefault, among: accounts)
            } catch {
                throw CommandFailure(.usage, error.message)
            }
            try config.set("defaults.account", to: account.name ?? account.userName ?? account.accountKey)
            try config.save(directory: configuration.configDirectory)
            terminal.note("\(account.displayName) is the default sign-in now (defaults.account in the config file)")
            return .ok
        }
        let chosen = defaultAccount(accounts, config: config, terminal)
        if json {
            terminal.out(try Self.json(accounts, default: chosen))
        } else if accounts.isEmpty {
            terminal.note("no saved sign-in in \(store.directory.path); run 'graph-ics login'")
        } else {
            terminal.out(Self.table(accounts, default: chosen))
        }
        return .ok
    }

    /// The key of the sign-in commands use without `--account`: the config's, else the only one.
    private func defaultAccount(_ accounts: [AccountTokens], config: UserConfig, _ terminal: Terminal) -> String? {
        guard let name = config.account else { return accounts.count == 1 ? accounts.first?.accountKey : nil }
        guard let account = try? TokenSourceFactory.account(named: name, among: accounts) else {
            terminal.warning("defaults.account in the config file names '\(name)', which is no saved sign-in")
            return nil
        }
        return account.accountKey
    }

    /// One line per sign-in: `*` for the default, who, tenant, access, refresh token last used.
    static func table(_ accounts: [AccountTokens], default chosen: String?) -> String {
        let rows = accounts.map { account in
            [
                account.name.map { "\($0) (\(account.userName ?? "user not known yet"))" }
                    ?? account.userName ?? account.accountKey,
                "tenant \(account.tenant)",
                scopes(account.scopes),
                "refresh token " + (account.refreshTokenUsedAt.map { "last used \(stamp($0))" } ?? "not used yet"),
            ]
        }
        let widths = (0..<3).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return zip(accounts, rows).map { account, row in
            let cells = row.enumerated().map { index, cell in
                index < widths.count ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0) : cell
            }
            return (account.accountKey == chosen ? "* " : "  ") + cells.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }

    /// The sign-ins as JSON objects: key, name, user, authority, tenant, client id, scopes, last refresh;
    /// written as every `--json` is (``JSONOutput``: keys sorted, absent values `null`).
    static func json(_ accounts: [AccountTokens], default chosen: String?) throws -> String {
        let objects: [JSONValue] = accounts.map { account in
            .object([
                "key": .string(account.accountKey), "authority": .string(account.authority),
                "tenant": .string(account.tenant), "clientId": .string(account.clientID),
                "scopes": .array(account.scopes.map { .string($0) }), "default": .bool(account.accountKey == chosen),
                "name": .string(account.name), "user": .string(account.userName),
                "refreshTokenLastUsed": .string(account.refreshTokenUsedAt.map { $0.formatted(.iso8601) }),
            ])
        }
        return try JSONOutput.text(.array(objects))
    }

    /// The scopes granted, short (`Calendars.ReadWrite`), without those every sign-in has.
    static func scopes(_ scopes: [String]) -> String {
        let shown = scopes.map { $0.split(separator: "/").last.map(String.init) ?? $0 }.filter {
            !["offline_access", "openid", "profile", "email"].contains($0.lowercased())
        }
        return shown.isEmpty ? "scopes not known" : "scopes " + shown.joined(separator: " ")
    }

    /// `2026-12-01 21:03 UTC`.
    static func stamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) \(two(parts.hour)):\(two(parts.minute)) UTC"
    }
}
