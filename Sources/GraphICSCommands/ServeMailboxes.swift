import Foundation
import GraphICS
import GraphICSServe
import ICalBridge
import Synchronization

/// The mailboxes `serve` reads: one ``Session`` per distinct `--user` of its feeds (the signed-in user's
/// for feeds without one), each with its own client, so each mailbox is throttled on its own. Resolves
/// a feed's calendar (``CalendarChoice``), whether it is the default calendar, and the zone its days
/// are cut in (`--tz`, else the mailbox's zone, asked once per mailbox).
final class ServeMailboxes: Sendable {
    private struct Mailbox: Sendable {
        var session: Session
        var client: GraphClient
        var zone: ResolvedZone?
    }

    private let mailboxes = Mutex<[String: Mailbox]>([:])
    private let connection: ConnectionOptions
    private let zone: ResolvedZone?
    private let terminal: Terminal

    /// Opens the sessions of `feeds`' mailboxes now, so that a missing sign-in stops serve at once (77).
    init(_ feeds: [FeedDefinition], connection: ConnectionOptions, zone: ResolvedZone?, terminal: Terminal) throws {
        self.connection = connection
        self.zone = zone
        self.terminal = terminal
        for user in Set(feeds.map { $0.user?.lowercased() ?? "" }) {
            _ = try mailbox(user.isEmpty ? nil : user)
        }
    }

    /// The target and client of `definition`; throws what Graph or the sign-in answered.
    func resolve(_ definition: FeedDefinition) throws -> ResolvedFeed {
        let user = definition.user?.lowercased()
        var mailbox = try mailbox(user)
        let calendarID = try CalendarChoice.id(for: definition.calendar, in: mailbox.client)
        let calendars = try mailbox.client.calendars()
        let calendar = calendars.first { candidate in
            calendarID.map { candidate.id == $0 } ?? (candidate.isDefaultCalendar == true)
        }
        let isPrimary = calendarID == nil || calendar?.isDefaultCalendar == true
        let zone = try self.zone ?? mailbox.zone ?? mailbox.session.mailboxZone(override: nil, terminal: terminal)
        mailbox.zone = zone
        mailboxes.withLock { $0[user ?? ""] = mailbox }
        let target = FeedTarget(
            definition: definition, calendarID: isPrimary ? nil : calendarID, isPrimary: isPrimary, zone: zone,
            calendarName: calendar?.name)
        return ResolvedFeed(target: target, client: mailbox.client)
    }

    private func mailbox(_ user: String?) throws -> Mailbox {
        if let known = mailboxes.withLock({ $0[user ?? ""] }) { return known }
        var options = connection
        options.user = user
        options.verbose = false
        let session = try Session.open(options, need: .read, terminal: terminal)
        let mailbox = Mailbox(session: session, client: session.client)
        return mailboxes.withLock { table in
            if let raced = table[user ?? ""] { return raced }
            table[user ?? ""] = mailbox
            return mailbox
        }
    }
}
