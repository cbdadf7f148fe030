import Foundation

/// Whether a CalDAV login may make changes that mail attendees (a meeting its account organises: new,
/// changed or deleted). `refuse`, the default, answers such a change with 403 and sends an answer to an
/// invitation without a reply mail.
public enum DAVInvitations: String, Codable, Sendable, CaseIterable {
    case send, refuse
}

/// A calendar a login is limited to, resolved through Graph at `dav add`: its id and the name it had then.
public struct DAVLoginCalendar: Codable, Sendable, Equatable {
    public var id: String
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// One CalDAV login of `$GRAPH_ICS_CONFIG_DIR/dav.json`: the user name a calendar app signs in with, the
/// saved sign-in (`graph-ics login`) it reads and writes Outlook through, and what it may do. The password
/// is kept only as ``DAVPassword/hash(_:)``.
public struct DAVLogin: Codable, Sendable, Equatable {
    /// Days before today a login serves by default.
    public static let defaultPastDays = 365
    /// Days after today a login serves by default.
    public static let defaultFutureDays = 730
    /// The longest user name.
    public static let maximumUserLength = 64

    /// The name the calendar app signs in with (``isValidUser(_:)``), compared exactly.
    public var user: String
    /// The saved sign-in, as `--account` takes it (``AccountTokens/isNamed(_:)``): its `login --name`, else
    /// its user, else its key.
    public var account: String
    /// The user principal name at `dav add`; serve refuses the login when the sign-in's user differs.
    public var mailbox: String?
    /// nil: every calendar the account can read, including later ones.
    public var calendars: [DAVLoginCalendar]?
    public var readOnly: Bool
    public var invitations: DAVInvitations
    public var pastDays: Int
    public var futureDays: Int
    /// `sha256:` and 64 hex digits (``DAVPassword/hash(_:)``); never printed.
    public var passwordHash: String
    public var created: Date

    public init(
        user: String, account: String, mailbox: String? = nil, calendars: [DAVLoginCalendar]? = nil,
        readOnly: Bool = false, invitations: DAVInvitations = .refuse, pastDays: Int = DAVLogin.defaultPastDays,
        futureDays: Int = DAVLogin.defaultFutureDays, passwordHash: String, created: Date = Date()
    ) {
        self.user = user
        self.account = account
        self.mailbox = mailbox
        self.calendars = calendars
        self.readOnly = readOnly
        self.invitations = invitations
        self.pastDays = pastDays
        self.futureDays = futureDays
        self.passwordHash = passwordHash
        self.created = created
    }

    /// Whether `user` can name a login: 1 to 64 ASCII letters, digits, `.`, `_`, `-` and `@` (an e-mail
    /// address fits; `:` cannot, as Basic credentials split at the first one).
    public static func isValidUser(_ user: String) -> Bool {
        let bytes = Array(user.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumUserLength else { return false }
        return bytes.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "@")
        }
    }

    /// The first thing wrong with the login as stored (`the user name …`), nil when nothing is.
    func problem() -> String? {
        if !Self.isValidUser(user) { return "user '\(user)' is not 1 to 64 letters, digits, '.', '_', '-' or '@'" }
        if account.isEmpty { return "account is empty" }
        if pastDays < 0 || futureDays < 0 { return "pastDays and futureDays must not be negative" }
        if !DAVPassword.isWellFormedHash(passwordHash) { return "passwordHash is not sha256: and 64 hex digits" }
        return nil
    }
}
