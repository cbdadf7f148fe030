import Foundation
import GraphICS
import GraphICSServe
import ICalBridge
import Synchronization

/// The mailboxes `serve` reads: one ``Session`` per distinct `--user` of its feeds (the signed-in user's
/// for feeds without one), each with its own client, so each mailbox is throttled on its own. Resolves
/// a feed's calendar (``CalendarChoice``), whether it is the default calendar, and the zone its days
/// are cut in (`--tz`, else the mailbox's zone, asked once per mailbox). Every session's requests end when
/// `cancellation` is cancelled (serve stopping).
final class ServeMailboxes: Sendable {
    private struct Mailbox: Sendable {
        var session: Session
        var client: GraphClient
        var zone: ResolvedZone?
        /// The mailbox's user principal name, which names its calendars' mirrors (shared with `sync`).
        var account: String?
    }

    private let mailboxes = Mutex<[String: Mailbox]>([:])
    private let connection: ConnectionOptions
    private let zone: ResolvedZone?
    private let terminal: Terminal
    private let remembered: RememberedTargets?
    private let cancellation: RequestCancellation

    /// Opens the sessions of `feeds`' mailboxes now, so that a missing sign-in stops serve at once (77).
    init(
        _ feeds: [FeedDefinition], connection: ConnectionOptions, zone: ResolvedZone?, remembered: RememberedTargets?,
        cancellation: RequestCancellation, terminal: Terminal
    ) throws {
        self.cancellation = cancellation
        self.connection = connection
        self.remembered = remembered
        self.zone = zone
        self.terminal = terminal
        for user in Set(feeds.map { $0.user?.lowercased() ?? "" }) {
            _ = try mailbox(user.isEmpty ? nil : user)
        }
    }

    /// The target and client of `definition`. When Graph cannot be asked, the target found the last time
    /// (``RememberedTargets``) is used, so that the feed's cached body is served at once; without one, it
    /// throws what Graph or the sign-in answered.
    func resolve(_ definition: FeedDefinition) throws -> ResolvedFeed {
        let mailbox = try mailbox(definition.user?.lowercased())
        do {
            let target = try resolve(definition, in: mailbox)
            remembered?.store(target)
            return ResolvedFeed(target: target, client: mailbox.client)
        } catch let error as RequestCancelled {
            throw error  // serve is stopping: no target to fall back to
        } catch {
            guard let target = remembered?.target(of: definition, zone: zone) else { throw error }
            return ResolvedFeed(target: target, client: mailbox.client)
        }
    }

    private func resolve(_ definition: FeedDefinition, in found: Mailbox) throws -> FeedTarget {
        let user = definition.user?.lowercased()
        var mailbox = found
        let calendarID = try CalendarChoice.id(for: definition.calendar, in: mailbox.client)
        let calendars = try mailbox.client.calendars()
        let calendar = calendars.first { candidate in
            calendarID.map { candidate.id == $0 } ?? (candidate.isDefaultCalendar == true)
        }
        let isPrimary = calendarID == nil || calendar?.isDefaultCalendar == true
        let zone = try self.zone ?? mailbox.zone ?? mailbox.session.mailboxZone(override: nil, terminal: terminal)
        mailbox.zone = zone
        let account = try mailbox.account ?? SyncCommand.account(mailbox.session, user: user)
        mailbox.account = account
        mailboxes.withLock { $0[user ?? ""] = mailbox }
        return FeedTarget(
            definition: definition, calendarID: isPrimary ? nil : calendarID, isPrimary: isPrimary, zone: zone,
            calendarName: calendar?.name, account: account)
    }

    private func mailbox(_ user: String?) throws -> Mailbox {
        if let known = mailboxes.withLock({ $0[user ?? ""] }) { return known }
        var options = connection
        options.user = user
        options.verbose = false
        let session = try Session.open(options, need: .read, terminal: terminal, cancellation: cancellation)
        let mailbox = Mailbox(session: session, client: session.client)
        return mailboxes.withLock { table in
            if let raced = table[user ?? ""] { return raced }
            table[user ?? ""] = mailbox
            return mailbox
        }
    }
}

/// The calendar id, kind, name and zone each feed was last resolved to, in `<state dir>/feeds/targets.json`
/// (0600, replaced atomically): a serve restarted while Graph is unreachable builds the feed's target from
/// it and serves the cached body, which depends on exactly these, at once.
final class RememberedTargets: Sendable {
    struct Entry: Codable, Equatable {
        var calendarID: String?
        var isPrimary: Bool
        var calendarName: String?
        var zone: String
        /// Absent in a file written before feeds read through mirrors.
        var account: String?
    }

    let file: URL
    private let lock = Mutex(())

    init(stateDirectory: URL) {
        file = stateDirectory.appendingPathComponent("feeds", isDirectory: true)
            .appendingPathComponent("targets.json", isDirectory: false)
    }

    /// A feed is its mailbox and its calendar as given: feeds of the same calendar share an entry.
    static func key(_ definition: FeedDefinition) -> String {
        (definition.user?.lowercased() ?? "") + "\u{0}" + (definition.calendar ?? "")
    }

    /// The target last stored for `definition`, in `zone` when given (`--tz`).
    func target(of definition: FeedDefinition, zone: ResolvedZone?) -> FeedTarget? {
        guard let entry = lock.withLock({ _ in read()[Self.key(definition)] }) else { return nil }
        var resolvedZone = zone
        if resolvedZone == nil, case .resolved(let stored, _) = ZoneResolver.resolve(entry.zone) {
            resolvedZone = stored
        }
        guard let resolvedZone else { return nil }
        return FeedTarget(
            definition: definition, calendarID: entry.calendarID, isPrimary: entry.isPrimary, zone: resolvedZone,
            calendarName: entry.calendarName, account: entry.account ?? definition.user?.lowercased() ?? "")
    }

    /// Records `target` when it differs from what is stored; a failure to write is left silent (the next
    /// restart then asks Graph, as without this file).
    func store(_ target: FeedTarget) {
        let entry = Entry(
            calendarID: target.calendarID, isPrimary: target.isPrimary, calendarName: target.calendarName,
            zone: target.zone.name, account: target.account)
        lock.withLock { _ in
            var entries = read()
            guard entries[Self.key(target.definition)] != entry else { return }
            entries[Self.key(target.definition)] = entry
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            guard let data = try? encoder.encode(entries) else { return }
            try? FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try? AtomicFile(file.path).write(data)
        }
    }

    private func read() -> [String: Entry] {
        guard let data = FileManager.default.contents(atPath: file.path) else { return [:] }
        return (try? JSONDecoder().decode([String: Entry].self, from: data)) ?? [:]
    }
}
