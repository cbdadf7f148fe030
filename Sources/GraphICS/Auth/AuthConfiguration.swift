import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a graph-ics command needs to do with the calendar, which decides the permissions it asks for.
public enum AccessNeed: String, Sendable, Equatable, CaseIterable {
    /// `export`, `agenda`, `whoami`, `calendars`: `Calendars.Read`.
    case read
    /// `import`, `add`: `Calendars.ReadWrite`.
    case write

    /// The delegated scopes graph-ics requests for this need, in the order sent to the identity platform.
    ///
    /// `offline_access` yields a refresh token; `User.Read` serves `whoami`; `MailboxSettings.Read` gives the
    /// user's time zone for `--week`. Short scope names are valid in national clouds too.
    public var scopes: [String] {
        switch self {
        case .read: ["offline_access", "User.Read", "MailboxSettings.Read", "Calendars.Read"]
        case .write: ["offline_access", "User.Read", "MailboxSettings.Read", "Calendars.ReadWrite"]
        }
    }

    /// Whether a sign-in granted `granted` scopes is enough for this need. An empty list (the identity
    /// platform did not say) is taken as enough; Graph itself answers 403 otherwise.
    public func isSatisfied(by granted: [String]) -> Bool {
        if granted.isEmpty { return true }
        let names = Set(granted.map { AccessNeed.shortScopeName($0) })
        switch self {
        case .read: return names.contains("calendars.read") || names.contains("calendars.readwrite")
        case .write: return names.contains("calendars.readwrite")
        }
    }

    /// `https://graph.microsoft.com/Calendars.Read` → `calendars.read`.
    static func shortScopeName(_ scope: String) -> String {
        let name = scope.split(separator: "/").last.map(String.init) ?? scope
        return name.lowercased()
    }
}

/// Where and as whom graph-ics signs in: authority, tenant, client id, and where tokens are kept.
///
/// Read it with ``fromEnvironment(_:authority:tenant:clientID:graphURL:)``, which applies the command-line
/// flags over `GRAPH_ICS_AUTHORITY`, `GRAPH_ICS_TENANT`, `GRAPH_ICS_CLIENT_ID`, `GRAPH_ICS_GRAPH_URL` and
/// `GRAPH_ICS_CONFIG_DIR`. Settings the user did not give stay `nil` (``tenant``, ``clientID``,
/// ``explicitAuthority``) so a stored sign-in can fill them in; the `resolved…` accessors apply defaults.
///
/// graph-ics ships no default client id: signing in needs an app registration the user (or their
/// administrator) owns, named by `GRAPH_ICS_CLIENT_ID` or `graph-ics login --client-id`. Microsoft's own
/// well-known public clients are not borrowed.
public struct AuthConfiguration: Sendable, Equatable {
    /// The global Microsoft Entra authority.
    public static let defaultAuthority = "https://login.microsoftonline.com"
    /// The tenant alias that accepts work, school and personal accounts.
    public static let defaultTenant = "common"
    /// The global Microsoft Graph endpoint.
    public static let defaultGraphURL = "https://graph.microsoft.com/v1.0"
    /// graph-ics has no client id of its own; see the type's documentation.
    public static let defaultClientID: String? = nil

    /// The authority the user named (`--authority`, `GRAPH_ICS_AUTHORITY`), without a trailing slash.
    public var explicitAuthority: String?
    /// The tenant the user named (`--tenant`, `GRAPH_ICS_TENANT`): a GUID, a domain, or an alias.
    public var tenant: String?
    /// The application (client) id the user named (`--client-id`, `GRAPH_ICS_CLIENT_ID`).
    public var clientID: String?
    /// The Microsoft Graph base URL, for the app-only scope (`https://graph.microsoft.us/.default`).
    public var graphBaseURL: URL
    /// The directory that holds the token files.
    public var configDirectory: URL

    public init(
        authority: String? = nil,
        tenant: String? = nil,
        clientID: String? = nil,
        graphBaseURL: URL,
        configDirectory: URL
    ) {
        self.explicitAuthority = authority
        self.tenant = tenant
        self.clientID = clientID
        self.graphBaseURL = graphBaseURL
        self.configDirectory = configDirectory
    }

    /// The authority in effect: the one named, else the global one.
    public var resolvedAuthority: String { explicitAuthority ?? AuthConfiguration.defaultAuthority }
    /// The tenant in effect: the one named, else `common`.
    public var resolvedTenant: String { tenant ?? AuthConfiguration.defaultTenant }

    /// The client id, or an error telling the user how to name one.
    public func requireClientID() throws(AuthError) -> String {
        if let clientID { return clientID }
        throw AuthError(
            .invalidConfiguration,
            "graph-ics needs the application (client) ID of an app registration: set GRAPH_ICS_CLIENT_ID "
                + "or pass --client-id to `graph-ics login`."
        )
    }

    /// `{authority}/{tenant}/oauth2/v2.0/devicecode`.
    public var deviceCodeEndpoint: URL {
        get throws(AuthError) {
            try AuthConfiguration.endpoint(authority: resolvedAuthority, tenant: resolvedTenant, "devicecode")
        }
    }

    /// `{authority}/{tenant}/oauth2/v2.0/token`.
    public var tokenEndpoint: URL {
        get throws(AuthError) {
            try AuthConfiguration.endpoint(authority: resolvedAuthority, tenant: resolvedTenant, "token")
        }
    }

    /// The app-only scope for the configured Graph: `{scheme}://{host}/.default`.
    public var appOnlyScope: String {
        var components = URLComponents()
        components.scheme = graphBaseURL.scheme
        components.host = graphBaseURL.host
        components.port = graphBaseURL.port
        let origin = components.string ?? "https://graph.microsoft.com"
        return origin + "/.default"
    }

    static func endpoint(authority: String, tenant: String, _ leaf: String) throws(AuthError) -> URL {
        guard let url = URL(string: "\(authority)/\(tenant)/oauth2/v2.0/\(leaf)") else {
            throw AuthError(.invalidConfiguration, "The authority \(authority) does not form a valid URL.")
        }
        return url
    }

    /// Reads the configuration from flags (given first) and the environment.
    ///
    /// - Throws: ``AuthError`` with ``AuthError/Code/insecureConfiguration`` for a plain `http://` authority
    ///   or Graph URL on a host other than loopback, ``AuthError/Code/invalidConfiguration`` for a malformed
    ///   value or when no configuration directory can be found.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        authority: String? = nil,
        tenant: String? = nil,
        clientID: String? = nil,
        graphURL: String? = nil
    ) throws(AuthError) -> AuthConfiguration {
        func value(_ flag: String?, _ name: String) -> String? {
            if let flag, !flag.isEmpty { return flag }
            if let env = environment[name]?.trimmingCharacters(in: .whitespaces), !env.isEmpty { return env }
            return nil
        }
        let authorityValue = try value(authority, "GRAPH_ICS_AUTHORITY").map { a throws(AuthError) in
            try validatedBaseURL(a, setting: "the authority (GRAPH_ICS_AUTHORITY, --authority)")
        }
        let tenantValue = try value(tenant, "GRAPH_ICS_TENANT").map { t throws(AuthError) in
            try validatedIdentifier(t, setting: "The tenant (GRAPH_ICS_TENANT, --tenant)")
        }
        let clientValue = try value(clientID, "GRAPH_ICS_CLIENT_ID").map { c throws(AuthError) in
            try validatedIdentifier(c, setting: "The client id (GRAPH_ICS_CLIENT_ID, --client-id)")
        }
        let graphString = try validatedBaseURL(
            value(graphURL, "GRAPH_ICS_GRAPH_URL") ?? defaultGraphURL,
            setting: "the Graph URL (GRAPH_ICS_GRAPH_URL, --graph-url)"
        )
        guard let graphBase = URL(string: graphString) else {
            throw AuthError(.invalidConfiguration, "The Graph URL \(graphString) is not a valid URL.")
        }
        return AuthConfiguration(
            authority: authorityValue,
            tenant: tenantValue,
            clientID: clientValue,
            graphBaseURL: graphBase,
            configDirectory: try configDirectory(environment)
        )
    }

    /// `GRAPH_ICS_CONFIG_DIR`, else `$XDG_CONFIG_HOME/graph-ics`, else `~/.config/graph-ics`.
    public static func configDirectory(_ environment: [String: String]) throws(AuthError) -> URL {
        if let dir = environment["GRAPH_ICS_CONFIG_DIR"], !dir.isEmpty {
            return URL(fileURLWithPath: dir, isDirectory: true)
        }
        // The XDG base directory spec ignores relative values.
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("graph-ics", isDirectory: true)
        }
        if let home = environment["HOME"].flatMap({ $0.isEmpty ? nil : $0 }) ?? passwordDatabaseHome() {
            return URL(fileURLWithPath: home, isDirectory: true)
                .appendingPathComponent(".config", isDirectory: true)
                .appendingPathComponent("graph-ics", isDirectory: true)
        }
        throw AuthError(
            .invalidConfiguration,
            "graph-ics cannot find a home directory for its token store: set GRAPH_ICS_CONFIG_DIR."
        )
    }

    private static func passwordDatabaseHome() -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let status = getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &result)
        guard status == 0, result != nil, let dir = entry.pw_dir else { return nil }
        let home = String(cString: dir)
        return home.isEmpty ? nil : home
    }

    /// An `https://` URL (or `http://` on loopback) without a trailing slash, query or fragment.
    static func validatedBaseURL(_ raw: String, setting: String) throws(AuthError) -> String {
        var text = raw
        while text.hasSuffix("/") { text.removeLast() }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty, components.query == nil, components.fragment == nil,
            components.user == nil, components.password == nil
        else {
            throw AuthError(.invalidConfiguration, "\(setting.capitalizedFirst) \"\(raw)\" is not an http(s) URL.")
        }
        switch scheme {
        case "https": return text
        case "http" where isLoopback(host): return text
        case "http":
            throw AuthError(
                .insecureConfiguration,
                "Refusing plain http:// for \(setting) on \(host): tokens would travel unencrypted; use https://."
            )
        default:
            throw AuthError(.invalidConfiguration, "\(setting.capitalizedFirst) \"\(raw)\" is not an http(s) URL.")
        }
    }

    /// Whether a host name is the loopback interface (`127.0.0.0/8`, `::1`, `localhost`), by the transport's
    /// own rule. (A prefix test let `127.0.0.1.example.com` pass as loopback.)
    static func isLoopback(_ host: String) -> Bool {
        CurlTransport.isLoopback(host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")))
    }

    /// Tenant and client ids go into URL paths and file names: GUIDs, domains and aliases only.
    static func validatedIdentifier(_ raw: String, setting: String) throws(AuthError) -> String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
        guard !raw.isEmpty, raw.count <= 256, raw.unicodeScalars.allSatisfy({ allowed.contains($0) }),
            raw != ".", raw != ".."
        else {
            throw AuthError(
                .invalidConfiguration,
                "\(setting) \"\(raw)\" is not a GUID or domain name; check the value in the Azure portal."
            )
        }
        return raw
    }
}

extension String {
    fileprivate var capitalizedFirst: String {
        guard let first else { return self }
        return first.uppercased() + dropFirst()
    }
}
