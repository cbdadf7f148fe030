import Foundation
import ICalBridge

/// One feed as `graph-ics feed add` defined it and `feeds.json` keeps it: which calendar, how much of each
/// event it shows, how many days around today, and the secret of its URL (`/<secret>/<name>.ics`).
///
/// JSON keys are the property names. A feed written by hand may leave out `calendar` and `user` (the
/// signed-in user's default calendar), `selection` (limited, private events as busy blocks), `pastDays`
/// and `futureDays`.
public struct FeedDefinition: Codable, Sendable, Equatable {
    /// The name in the URL and in `feed list`: see ``isValidName(_:)``.
    public var name: String
    /// 64 lowercase hex digits (256 bits, ``FeedSecret/generate()``).
    public var secret: String
    /// The calendar as the user gave it (its name or id); nil for the mailbox's default calendar.
    public var calendar: String?
    /// Whose mailbox (`--user UPN`, app-only sign-in); nil for the signed-in user (`/me`).
    public var user: String?
    /// What the feed shows of each event, and which events it leaves out.
    public var selection: EventSelection
    /// Days before today the feed reaches back.
    public var pastDays: Int
    /// Days after today the feed reaches ahead (today itself is always in).
    public var futureDays: Int

    /// What a new feed shows: limited detail, private and confidential events as busy blocks.
    public static let defaultSelection = EventSelection(detail: .limited, showPrivate: false)
    public static let defaultPastDays = 30
    public static let defaultFutureDays = 365
    /// The longest window a feed may have in days: what one calendarView read of Graph answers (1825 days).
    public static let longestWindowDays = 1825

    public init(
        name: String, secret: String = FeedSecret.generate(), calendar: String? = nil, user: String? = nil,
        selection: EventSelection = FeedDefinition.defaultSelection, pastDays: Int = FeedDefinition.defaultPastDays,
        futureDays: Int = FeedDefinition.defaultFutureDays
    ) {
        self.name = name
        self.secret = secret
        self.calendar = calendar
        self.user = user
        self.selection = selection
        self.pastDays = pastDays
        self.futureDays = futureDays
    }

    /// Whether `name` may name a feed: 1 to 64 of `A-Z a-z 0-9 . _ -`, starting with a letter or digit (so it
    /// is safe in a URL and a file name, and never `.` or `..`).
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 64, isAlphanumeric(first) else { return false }
        return bytes.allSatisfy {
            isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
        }
    }

    /// What is wrong with this definition, as one sentence naming the key; nil when nothing is.
    public func problem() -> (key: String, message: String)? {
        if !Self.isValidName(name) {
            return (
                "name", "'\(name)' is not a feed name (1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or digit)"
            )
        }
        if !FeedSecret.isWellFormed(secret) {
            return ("secret", "is not 64 lowercase hex digits; `graph-ics feed rotate \(name)` makes a new one")
        }
        if calendar?.isEmpty == true { return ("calendar", "is empty; leave it out for the default calendar") }
        if user?.isEmpty == true { return ("user", "is empty; leave it out for the signed-in user") }
        if pastDays < 0 { return ("pastDays", "is \(pastDays); it counts days and cannot be negative") }
        if futureDays < 0 { return ("futureDays", "is \(futureDays); it counts days and cannot be negative") }
        if pastDays + futureDays + 1 > Self.longestWindowDays {
            return (
                "futureDays",
                "and pastDays make a window of \(pastDays + futureDays + 1) days; Graph answers at most "
                    + "\(Self.longestWindowDays)"
            )
        }
        return nil
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    // MARK: Codable

    private enum CodingKeys: String, CodingKey {
        case name, secret, calendar, user, selection, pastDays, futureDays
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        secret = try container.decode(String.self, forKey: .secret)
        calendar = try container.decodeIfPresent(String.self, forKey: .calendar)
        user = try container.decodeIfPresent(String.self, forKey: .user)
        selection = try container.decodeIfPresent(EventSelection.self, forKey: .selection) ?? Self.defaultSelection
        pastDays = try container.decodeIfPresent(Int.self, forKey: .pastDays) ?? Self.defaultPastDays
        futureDays = try container.decodeIfPresent(Int.self, forKey: .futureDays) ?? Self.defaultFutureDays
    }
}

/// Everything `feeds.json` holds: the feeds, in the order they were added, and the address `feed list`
/// puts in front of their URLs.
public struct FeedConfiguration: Codable, Sendable, Equatable {
    /// The public address of `serve` (`--base-url`, else the address it last listened on); nil until a
    /// serve stored one.
    public var baseURL: String?
    public var feeds: [FeedDefinition]

    /// What `feed list` shows when no serve stored an address.
    public static let defaultBaseURL = "http://127.0.0.1:8080"

    public init(baseURL: String? = nil, feeds: [FeedDefinition] = []) {
        self.baseURL = baseURL
        self.feeds = feeds
    }

    /// The feed named `name` (names are unique).
    public func feed(named name: String) -> FeedDefinition? {
        feeds.first { $0.name == name }
    }

    /// The URL calendar apps subscribe to: `<base URL>/<secret>/<name>.ics`.
    public func url(of feed: FeedDefinition) -> String {
        var base = baseURL ?? Self.defaultBaseURL
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/" + feed.secret + "/" + feed.name + ".ics"
    }

    /// The first thing wrong with the configuration as a whole, naming its key path (`feeds[2].name`).
    public func problem() -> (key: String, message: String)? {
        var seen: Set<String> = []
        for (index, feed) in feeds.enumerated() {
            if let (key, message) = feed.problem() { return ("feeds[\(index)].\(key)", message) }
            if !seen.insert(feed.name).inserted {
                return ("feeds[\(index)].name", "'\(feed.name)' names an earlier feed too; feed names are unique")
            }
        }
        if let baseURL, !(baseURL.hasPrefix("http://") || baseURL.hasPrefix("https://")) {
            return ("baseURL", "'\(baseURL)' is not an http:// or https:// address")
        }
        return nil
    }

    private enum CodingKeys: String, CodingKey { case baseURL, feeds }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        baseURL = try container.decodeIfPresent(String.self, forKey: .baseURL)
        feeds = try container.decodeIfPresent([FeedDefinition].self, forKey: .feeds) ?? []
    }
}
