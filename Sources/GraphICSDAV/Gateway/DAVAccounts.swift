import Foundation
import GraphICS
import ICalBridge
import Synchronization

/// The Graph sessions the gateway writes and reads with, one per saved sign-in, and the calendars each login
/// is served, made as they are first asked for.
///
/// `serve` fills it at start (one session per stored account, whatever its own `--account`); an account whose
/// session could not be made keeps the reason, and its logins are answered from their stored calendars with
/// writes refused.
public final class DAVAccounts: Sendable {
    /// One saved sign-in as the gateway uses it.
    public struct Session: Sendable {
        public var client: GraphClient?
        /// The user principal name the session signs in as.
        public var mailbox: String?
        /// Why there is no client (no saved sign-in, the sign-in expired), to tell writers.
        public var problem: String?
        /// The mailbox's zone, for events Graph gives no zone of their own.
        public var zone: ResolvedZone?

        public init(client: GraphClient?, mailbox: String?, problem: String? = nil, zone: ResolvedZone? = nil) {
            self.client = client
            self.mailbox = mailbox
            self.problem = problem
            self.zone = zone
        }
    }

    private let sessions = Mutex<[String: (session: Session, at: Date)]>([:])
    private let calendars = Mutex<[String: [DAVCalendar]]>([:])
    private let listed = Mutex<[String: (at: Date, calendars: [DAVCalendarInfo])]>([:])
    /// Logins refused because their account now signs in as another user (logged once each).
    private let mismatched = Mutex<Set<String>>([])
    let stateDirectory: String
    let log: @Sendable (String) -> Void
    private let open: @Sendable (String) -> Session
    /// How long a session that could not be opened is kept before it is tried again (5 minutes: the token
    /// endpoint is not asked more often).
    let retryAfter: TimeInterval

    /// - Parameter open: opens the session of a saved sign-in by its name (never throws: a failure is a
    ///   session with a `problem`).
    public init(
        stateDirectory: String, retryAfter: TimeInterval = 300, log: @escaping @Sendable (String) -> Void,
        open: @escaping @Sendable (String) -> Session
    ) {
        self.stateDirectory = stateDirectory
        self.retryAfter = retryAfter
        self.log = log
        self.open = open
    }

    /// The session of the saved sign-in `account`, opened on first use (and again after `retryAfter` when
    /// it could not be).
    public func session(_ account: String, now: Date = Date()) -> Session {
        if let known = sessions.withLock({ $0[account] }),
            known.session.client != nil || now.timeIntervalSince(known.at) < retryAfter
        {
            return known.session
        }
        let session = open(account)
        if let problem = session.problem { log("graph-ics serve: CalDAV logins of \(account): \(problem)") }
        sessions.withLock { $0[account] = (session, now) }
        return session
    }

    /// When each account's sign-in was last refused (the token endpoint or Graph answered that it expired).
    private let refusedAt = Mutex<[String: Date]>([:])

    /// Records that an account's sign-in was refused (writes tell the client so); its calendars rest for
    /// `retryAfter` seconds: the token endpoint is not asked again before.
    func refuse(_ account: String, problem: String, now: Date = Date()) {
        sessions.withLock { $0[account]?.session.problem = problem }
        refusedAt.withLock { $0[account] = now }
    }

    /// Whether the account's sign-in was refused less than `retryAfter` seconds ago.
    func isResting(_ account: String, now: Date = Date()) -> Bool {
        refusedAt.withLock { $0[account] }.map { now.timeIntervalSince($0) < retryAfter } ?? false
    }

    /// The calendars `login` is served, in Graph's order: its `--calendar`s, or every calendar the account
    /// can read (listed again at most every `interval` seconds, so that calendars added later appear).
    /// Calendars already made are kept (their stores and snapshots); without a session, the ones made before.
    func calendars(of login: DAVLogin, interval: TimeInterval, now: Date = Date()) -> [DAVCalendar] {
        let made = calendars.withLock { $0[login.user] } ?? []
        let session = session(login.account, now: now)
        if let expected = login.mailbox, let actual = session.mailbox, expected.lowercased() != actual.lowercased() {
            if mismatched.withLock({ $0.insert(login.user).inserted }) {
                log(
                    "graph-ics serve: the CalDAV login \(login.user) was made for \(expected), but the sign-in"
                        + " \(login.account) is now \(actual): the login is refused; make it again with graph-ics dav add"
                )
            }
            return []
        }
        guard let client = session.client else {
            return made.isEmpty ? stored(login) : made
        }
        if !made.isEmpty, isResting(login.account, now: now) { return made }
        if !made.isEmpty, let seen = listed.withLock({ $0[login.account] }), now.timeIntervalSince(seen.at) < interval {
            return reconcile(login, made, seen.calendars, session: session, client: client)
        }
        do {
            let infos = try client.calendars().map(DAVCalendarInfo.init)
            listed.withLock { $0[login.account] = (now, infos) }
            return reconcile(login, made, infos, session: session, client: client)
        } catch {
            log("graph-ics serve: listing the calendars of \(login.account) failed: \(error)")
            return made
        }
    }

    private func reconcile(
        _ login: DAVLogin, _ made: [DAVCalendar], _ infos: [DAVCalendarInfo], session: Session, client: GraphClient
    ) -> [DAVCalendar] {
        let wanted =
            login.calendars.map { chosen in
                chosen.map { choice in
                    infos.first { $0.id == choice.id }
                        ?? DAVCalendarInfo(
                            id: choice.id, name: choice.name, color: nil, canEdit: true, isDefault: false)
                }
            } ?? infos
        let byID = Dictionary(made.map { ($0.info.id, $0) }, uniquingKeysWith: { first, _ in first })
        let result = wanted.map { info -> DAVCalendar in
            if let calendar = byID[info.id], calendar.info == info { return calendar }
            var options = ExportOptions(fallbackZone: session.zone, calendarName: info.name)
            options.file = "\(login.user)/\(info.name)"
            return DAVCalendar(
                info: info, login: login, mailbox: session.mailbox ?? login.mailbox ?? login.account, client: client,
                stateDirectory: stateDirectory, exportOptions: options, log: log)
        }
        calendars.withLock { $0[login.user] = result }
        return result
    }

    /// Without a session: the login's chosen calendars, answered from their stores; refreshes and writes
    /// fail until the session is back.
    private func stored(_ login: DAVLogin) -> [DAVCalendar] {
        guard let chosen = login.calendars else { return [] }
        let result = chosen.map { choice in
            DAVCalendar(
                info: DAVCalendarInfo(id: choice.id, name: choice.name, color: nil, canEdit: false, isDefault: false),
                login: login, mailbox: login.mailbox ?? login.account, client: nil, stateDirectory: stateDirectory,
                log: log)
        }
        calendars.withLock { $0[login.user] = result }
        return result
    }

    /// Every calendar made so far (the background refresh walks them).
    func allCalendars() -> [DAVCalendar] {
        calendars.withLock { Array($0.values.joined()) }
    }
}
