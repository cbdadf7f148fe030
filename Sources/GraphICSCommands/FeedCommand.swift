import Foundation
import GraphICS
import GraphICSServe
import ICalBridge

/// `graph-ics feed add|list|remove|rotate`: the feeds `graph-ics serve` serves, kept in
/// `$GRAPH_ICS_CONFIG_DIR/feeds.json` (``FeedStore``). Only `add --calendar` talks to Graph, to check the
/// calendar when a sign-in is at hand; `serve` finds each feed's calendar when it loads it.
struct FeedCommand: Command {
    static let name = "feed"
    static let abstract = "Define the calendar feeds 'graph-ics serve' serves (add, list, remove, rotate)."
    static let synopsis = [
        "add NAME [--calendar NAME|ID] [--user UPN] [--detail full|limited|busy] [--show-private]",
        "    [--exclude-declined] [--exclude-cancelled] [--category C]... [--past DAYS] [--future DAYS]",
        "list [--json]",
        "remove NAME",
        "rotate NAME",
    ]
    static let discussion = """
        A feed is a calendar that other calendar apps (Google Calendar, Apple Calendar, Thunderbird,
        khal and vdirsyncer) subscribe to at a private URL, http(s)://HOST:PORT/SECRET/NAME.ics,
        while 'graph-ics serve' runs. The secret is 256 random bits: anyone who has the URL can
        read the feed, so share it as you would a password. 'feed list' is the only place that
        prints it.

        add: a new feed NAME (letters, digits, '.', '_' and '-', at most 64) of the default calendar,
        or of --calendar, of your mailbox or of --user's (app-only). It shows the events from --past
        days ago to --future days ahead at a detail level: full (what 'graph-ics export' writes),
        limited (times, subject, location and show-as; no body, attendees, organizer, meeting link,
        categories or ids; the default) or busy (times and show-as only, as "Busy", "Tentative",
        "Out of office" or "Working elsewhere"; free time left out). Private and confidential
        events are busy blocks at every level unless --show-private. A --calendar is checked as
        'export --calendar' checks it when a sign-in is at hand (a saved one, app-only --user, or
        GRAPH_ICS_ACCESS_TOKEN): an unknown name exits 66 with the list; without one, or with
        Graph unreachable, the feed is added with a warning that the calendar was not checked.
        list: each feed's name, calendar, detail level and URL (--json: as JSON).
        remove: the feed stops being served.
        rotate: a new secret; the old URL stops working.

        A running 'graph-ics serve' notices every change within two seconds.
        """
    static let epilogue = """
        Examples:
          graph-ics feed add work
          graph-ics feed add team --calendar Team --detail busy
          graph-ics feed list

        Exit status: 0 ok, 1 a feed of that name exists already (add), 64 usage (a bad name
        included, or two calendars of that name), 66 no feed of that name (remove, rotate) or no
        such calendar (add), 74 feeds.json cannot be read or written.
        """
    static let operands: ValueCompletion? = .choices(["add", "list", "remove", "rotate"])

    enum Action: String, CaseIterable {
        case add, list, remove, rotate
    }

    struct Options: OptionGroup {
        let calendar = Option.calendar(
            help: "add: serve this calendar (a name or an id, see 'graph-ics calendars'); the default calendar "
                + "otherwise."
        ).refusingEmpty("--calendar needs a calendar name or id")
        let user = Option(
            "--user", value: "UPN",
            help: "add: a calendar of this user's mailbox, read with app-only access (GRAPH_ICS_CLIENT_SECRET)."
        ).refusingEmpty("--user needs a user principal name (name@contoso.com)")
        let selection = SelectionOptions.Declarations(defaults: .feed)
        let past = Defaulted<Int>.days("--past", default: 30, help: "add: the events from this many days ago.")
            .option
        let future = Defaulted<Int>.days("--future", default: 365, help: "add: the events up to this many days ahead.")
            .option
        let json = Flag("--json", help: "list: print the feeds as a JSON array on standard output.")
    }

    var action: Action
    var name: String?
    var definition: FeedDefinition?
    var json: Bool

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        guard let word = parsed.positionals.first else {
            throw UsageError("feed needs what to do: add, list, remove or rotate")
        }
        guard let action = Action(rawValue: word) else {
            throw UsageError(
                "feed add, list, remove or rotate, not '\(word)'"
                    + Suggestion.hint(for: word, among: Action.allCases.map(\.rawValue)))
        }
        self.action = action
        let operands = parsed.positionals.dropFirst()
        json = parsed[\.json]
        if json && action != .list { throw UsageError("--json goes with 'feed list'") }
        let selection = try SelectionOptions(parsed.group(\.selection), defaults: .feed).selection
        let calendar = try parsed[\.calendar]
        let user = try parsed[\.user]
        let past = try parsed[\.past]
        let future = try parsed[\.future]
        let defaultSelection = try SelectionOptions(Parsed([], declarations: .init(defaults: .feed)), defaults: .feed)
            .selection
        if action != .add
            && (calendar != nil || user != nil || past != nil || future != nil || selection != defaultSelection)
        {
            throw UsageError("--calendar, --user, --detail, --past, --future and the like go with 'feed add'")
        }
        switch action {
        case .list:
            guard operands.isEmpty else { throw UsageError("feed list takes no name") }
        case .add, .remove, .rotate:
            guard let name = operands.first else { throw UsageError("feed \(word) needs the feed's NAME") }
            guard operands.count == 1 else { throw UsageError("feed \(word) takes one NAME, not \(operands.count)") }
            guard FeedDefinition.isValidName(name) else {
                throw UsageError(
                    "'\(name)' cannot name a feed: use at most 64 letters, digits, '.', '_' and '-', starting with a "
                        + "letter or digit")
            }
            self.name = name
        }
        if action == .add, let name {
            definition = FeedDefinition(
                name: name, secret: "", calendar: calendar, user: user, selection: selection,
                pastDays: past ?? FeedDefinition.defaultPastDays, futureDays: future ?? FeedDefinition.defaultFutureDays
            )
        }
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        let store = FeedStore(directory: try ConfigDirectory.url())
        do {
            switch action {
            case .add: try add(store, terminal)
            case .list: try list(store, terminal)
            case .remove: try remove(store, terminal)
            case .rotate: try rotate(store, terminal)
            }
        } catch let error as FeedStoreError {
            throw CommandFailure(.ioError, error.description)
        }
        return .ok
    }

    private func add(_ store: FeedStore, _ terminal: Terminal) throws {
        guard var definition else { return }
        if let calendar = definition.calendar { try Self.check(calendar, of: definition.user, terminal) }
        definition.secret = FeedSecret.generate()
        try store.update { configuration in
            guard !configuration.feeds.contains(where: { $0.name == definition.name }) else {
                throw CommandFailure(
                    .partlyFailed,
                    "a feed named '\(definition.name)' exists already; 'graph-ics feed remove \(definition.name)' "
                        + "first, or choose another name")
            }
            configuration.feeds.append(definition)
        }
        terminal.err("added feed \(definition.name) (\(Self.describe(definition))); its URL: graph-ics feed list")
    }

    /// Checks that `calendar` names one calendar of the mailbox, as `export --calendar` does (66 with the
    /// list, 64 when the name is ambiguous), when a sign-in is at hand; warns that it was not checked when
    /// none is, or Graph cannot be reached.
    static func check(_ calendar: String, of user: String?, _ terminal: Terminal) throws {
        func unchecked(_ error: any Error) {
            let reason = FetchFailure.failure(error)?.message ?? "\(error)"
            terminal.warning(
                "the calendar '\(calendar)' was not checked (\(reason)); 'graph-ics serve' looks for it when it runs")
        }
        let session: Session
        do {
            session = try Session.open(ConnectionOptions(user: user), need: .read, terminal: terminal)
        } catch {
            return unchecked(error)
        }
        do {
            _ = try CalendarChoice.id(for: calendar, in: session.client)
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            unchecked(error)
        }
    }

    /// `limited, default calendar`, `busy, calendar Team of ann@contoso.com`.
    static func describe(_ definition: FeedDefinition) -> String {
        var text = definition.selection.detail.rawValue + ", "
        text += definition.calendar.map { "calendar \($0)" } ?? "default calendar"
        if let user = definition.user { text += " of \(user)" }
        return text
    }

    private func list(_ store: FeedStore, _ terminal: Terminal) throws {
        let configuration = try store.load()
        func url(_ feed: FeedDefinition) -> String { configuration.url(of: feed) }
        if json {
            let entries: [[String: Any]] = configuration.feeds.map { feed in
                [
                    "name": feed.name, "calendar": feed.calendar.map { $0 as Any } ?? NSNull(),
                    "user": feed.user.map { $0 as Any } ?? NSNull(),
                    "detail": feed.selection.detail.rawValue, "showPrivate": feed.selection.showPrivate,
                    "pastDays": feed.pastDays, "futureDays": feed.futureDays, "url": url(feed),
                ]
            }
            terminal.out(try JSONOutput.text(JSONValue(jsonObject: entries)))
            return
        }
        guard !configuration.feeds.isEmpty else {
            terminal.note("no feeds yet; add one with 'graph-ics feed add NAME'")
            return
        }
        let rows =
            [["NAME", "CALENDAR", "DETAIL", "URL"]]
            + configuration.feeds.map { feed in
                let calendar = (feed.calendar ?? "(default)") + (feed.user.map { " of \($0)" } ?? "")
                let detail = feed.selection.detail.rawValue + (feed.selection.showPrivate ? "+private" : "")
                return [feed.name, calendar, detail, url(feed)]
            }
        terminal.out(Self.table(rows))
    }

    /// Columns padded to their widest cell, two spaces apart; the last column is not padded.
    static func table(_ rows: [[String]]) -> String {
        let widths = (0..<(rows.first?.count ?? 0)).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ") + "\n"
        }.joined()
    }

    private func remove(_ store: FeedStore, _ terminal: Terminal) throws {
        guard let name else { return }
        try store.update { configuration in
            guard let index = configuration.feeds.firstIndex(where: { $0.name == name }) else {
                throw Self.unknown(name)
            }
            configuration.feeds.remove(at: index)
        }
        terminal.err("removed feed \(name); a running serve stops serving it within 2 s")
    }

    private func rotate(_ store: FeedStore, _ terminal: Terminal) throws {
        guard let name else { return }
        try store.update { configuration in
            guard let index = configuration.feeds.firstIndex(where: { $0.name == name }) else {
                throw Self.unknown(name)
            }
            configuration.feeds[index].secret = FeedSecret.generate()
        }
        terminal.err(
            "gave feed \(name) a new secret: its old URL stops working (within 2 s in a running serve); "
                + "its new URL: graph-ics feed list")
    }

    static func unknown(_ name: String) -> CommandFailure {
        CommandFailure(.inputMissing, "no feed named '\(name)' (see 'graph-ics feed list')")
    }
}
