import Dispatch
import Foundation
import GraphICS
import GraphICSServe
import ICalBridge
import Synchronization

/// Answers CalDAV under `/dav/` and `/.well-known/caldav`: discovery, reads from each calendar's
/// ``DAVSnapshot`` (never waiting for Graph longer than 5 s), and writes through the import's mapping,
/// ``EventChange`` and the one ``MailingRule``.
///
/// Paths: `/dav/` (the root), `/dav/USER/` (the login's principal and calendar home), `/dav/USER/KEY/` (one
/// calendar, KEY the first 16 hex of its id's SHA-256), `/dav/USER/KEY/NAME.ics` (one item). Hrefs in answers
/// carry `basePath` (the path of `--base-url`) in front.
///
/// Thread-safety: `respond(to:)` is called on libmicrohttpd's threads, several at once.
public final class DAVGateway: Sendable {
    let authenticator: DAVAuthenticator
    let accounts: DAVAccounts
    /// `--base-url`'s path without a trailing slash ("" for none).
    let basePath: String
    /// `--refresh`, in seconds.
    let refreshInterval: Int
    let log: @Sendable (String) -> Void
    /// How long a request waits for a refresh it started (5 s).
    let refreshWait: Duration
    /// The refresh rounds started: at most one per calendar under way, each on a thread of its own.
    private let rounds = Mutex(Rounds())

    private struct Rounds {
        /// Calendars with a round under way (by store path), and what signals its end.
        var running: [String: DispatchSemaphore] = [:]
        /// The rounds' threads not joined yet, and whether each has ended.
        var threads: [(thread: JoinableThread, ended: RoundEnd)] = []
        /// ``stop()`` was called: no round starts.
        var stopped = false
    }

    /// Set by a round's thread as its last step: its join returns at once.
    private final class RoundEnd: Sendable {
        let value = Atomic<Bool>(false)
    }
    /// When each failure was last logged (by calendar and message): the same failure once an hour.
    private let logged = Mutex<[String: Date]>([:])

    public init(
        authenticator: DAVAuthenticator, accounts: DAVAccounts, basePath: String = "", refreshInterval: Int = 300,
        refreshWait: Duration = .seconds(5), log: @escaping @Sendable (String) -> Void
    ) {
        self.authenticator = authenticator
        self.accounts = accounts
        var base = basePath
        while base.hasSuffix("/") { base.removeLast() }
        self.basePath = base
        self.refreshInterval = refreshInterval
        self.refreshWait = refreshWait
        self.log = log
    }

    /// Whether the gateway answers `path` (the rest is the feeds').
    public static func handles(_ path: String) -> Bool {
        path == "/.well-known/caldav" || path == "/.well-known/caldav/" || path == "/dav" || path.hasPrefix("/dav/")
    }

    /// The `DAV:` header: the server owns scheduling (`calendar-auto-schedule`), so clients never mail
    /// attendees themselves.
    static let davHeader = "1, 3, calendar-access, calendar-auto-schedule"
    static let allowed = "OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, PROPPATCH, REPORT"

    // MARK: Routing

    /// What a `/dav/` path names.
    enum Target: Equatable {
        case root
        case home(user: String)
        case calendar(user: String, key: String)
        case object(user: String, key: String, name: String)
    }

    /// The target of a raw request path (percent-encoded, without the query); nil when it names nothing.
    static func target(of path: String) -> Target? {
        guard path == "/dav" || path.hasPrefix("/dav/") else { return nil }
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).dropFirst()
        var segments: [String] = []
        for part in parts {
            guard let decoded = decode(part), !decoded.isEmpty, decoded != ".",
                decoded != "..", !decoded.contains("/")
            else { return nil }
            segments.append(decoded)
        }
        switch segments.count {
        case 0: return .root
        case 1: return .home(user: segments[0])
        case 2: return .calendar(user: segments[0], key: segments[1])
        case 3: return .object(user: segments[0], key: segments[1], name: segments[2])
        default: return nil
        }
    }

    public func respond(to request: HTTPServerRequest) -> HTTPServerResponse {
        respondNamingLogin(to: request).response
    }

    /// The answer, and the login that made the request (for the access log; nil before authentication).
    public func respondNamingLogin(to request: HTTPServerRequest) -> (response: HTTPServerResponse, user: String?) {
        let path = request.path
        var user: String?
        let response = route(request, path: path, user: &user)
        return (response, user)
    }

    private func route(_ request: HTTPServerRequest, path: String, user named: inout String?) -> HTTPServerResponse {
        if path.hasPrefix("/.well-known/caldav") {
            return HTTPServerResponse(
                status: 301, headers: [("Location", basePath + "/dav/"), ("Cache-Control", "no-store")])
        }
        if request.method == "OPTIONS" {
            return HTTPServerResponse(
                status: 200, headers: [("DAV", Self.davHeader), ("Allow", Self.allowed), ("Content-Length", "0")])
        }
        let login: DAVLogin
        switch authenticator.authenticate(request) {
        case .authenticated(let found):
            login = found
            named = found.user
        case .throttled:
            return text(429, "too many failed logins; try again in a minute\n", extra: [("Retry-After", "60")])
        case .missing, .refused:
            return text(
                401, "a CalDAV login of graph-ics is needed (graph-ics dav add)\n",
                extra: [("WWW-Authenticate", "Basic realm=\"graph-ics\", charset=\"UTF-8\"")])
        }
        guard let target = Self.target(of: path) else { return notFound() }
        if let user = target.user, user != login.user { return notFound() }
        do {
            return try answer(request, target: target, login: login)
        } catch let error as DAVXMLError {
            return text(400, "\(error.message)\n")
        } catch {
            log("graph-ics serve: \(request.method) \(path): \(error)")
            return text(500, "the gateway failed: \(error)\n")
        }
    }

    private func answer(_ request: HTTPServerRequest, target: Target, login: DAVLogin) throws -> HTTPServerResponse {
        switch request.method {
        case "PROPFIND": return try propfind(request, target: target, login: login)
        case "REPORT": return try report(request, target: target, login: login)
        case "GET", "HEAD": return get(request, target: target, login: login)
        case "PUT": return put(request, target: target, login: login)
        case "DELETE": return delete(request, target: target, login: login)
        case "PROPPATCH": return try proppatch(request, target: target, login: login)
        case "MKCALENDAR", "MKCOL":
            return error(
                403, .dav("resource-must-be-null"),
                "graph-ics serves the calendars of Outlook: make a calendar in Outlook, and it is listed here")
        default:
            return text(405, "\(request.method) is not served here\n", extra: [("Allow", Self.allowed)])
        }
    }

    // MARK: Calendars

    /// The login's calendars, listed from Graph again at most once an hour (or every `--refresh` when
    /// that is longer): a calendar added in Outlook appears within the hour, and a client's read inside the
    /// refresh interval asks Graph nothing.
    func calendars(of login: DAVLogin) -> [DAVCalendar] {
        let interval = refreshInterval == 0 ? 0 : max(TimeInterval(refreshInterval), 3600)
        return accounts.calendars(of: login, interval: interval)
    }

    func calendar(_ key: String, of login: DAVLogin) -> DAVCalendar? {
        calendars(of: login).first { $0.info.key == key }
    }

    /// The calendar's snapshot, refreshed first when its last round is older than `--refresh` seconds: a
    /// round is started (at most one per calendar at a time, on a thread of its own) and waited for at most
    /// `refreshWait`; then the snapshot is answered from, whatever the round's outcome.
    func fresh(_ calendar: DAVCalendar, now: Date = Date()) -> DAVSnapshot {
        let snapshot = calendar.snapshot
        if let refreshed = snapshot.refreshed, now.timeIntervalSince(refreshed) < TimeInterval(refreshInterval) {
            return snapshot
        }
        if let failed = calendar.lastFailure, now.timeIntervalSince(failed.at) < TimeInterval(min(refreshInterval, 60))
        {
            return snapshot
        }
        if accounts.isResting(calendar.login.account, now: now) { return snapshot }
        let done = startRefresh(calendar)
        let seconds = Double(refreshWait.components.seconds) + Double(refreshWait.components.attoseconds) / 1e18
        _ = done.wait(timeout: .now() + seconds)
        return calendar.snapshot
    }

    /// Starts a round of `calendar` unless one is under way; returns what signals its end (at once when the
    /// gateway is stopping or no thread can be made now: the snapshot is answered from).
    @discardableResult
    func startRefresh(_ calendar: DAVCalendar) -> DispatchSemaphore {
        rounds.withLock { rounds -> DispatchSemaphore in
            // The threads of the rounds that ended are joined as the next one starts.
            rounds.threads.removeAll { round in
                guard round.ended.value.load(ordering: .acquiring) else { return false }
                round.thread.join()
                return true
            }
            if let semaphore = rounds.running[calendar.storePath] { return semaphore }
            let semaphore = DispatchSemaphore(value: 0)
            guard !rounds.stopped else {
                semaphore.signal()
                return semaphore
            }
            let ended = RoundEnd()
            let thread = JoinableThread.start(name: "graph-ics dav round") { [self] in
                round(calendar)
                self.rounds.withLock { $0.running[calendar.storePath] = nil }
                ended.value.store(true, ordering: .releasing)
                for _ in 0..<64 { semaphore.signal() }
            }
            guard let thread else {
                semaphore.signal()
                return semaphore
            }
            rounds.running[calendar.storePath] = semaphore
            rounds.threads.append((thread, ended))
            return semaphore
        }
    }

    /// One refresh of `calendar`, its failure logged (once an hour) and a refused sign-in set to rest.
    private func round(_ calendar: DAVCalendar) {
        do {
            try calendar.refresh()
        } catch {
            let name = "\(calendar.login.user)/\(calendar.info.name)"
            logOnceAnHour("graph-ics serve: refreshing \(name) failed: \(error)")
            if error is AuthError || (error as? GraphError)?.kind == .unauthorized {
                accounts.refuse(
                    calendar.login.account,
                    problem: "the Outlook sign-in for \(calendar.login.account) on the server expired")
            }
        }
    }

    /// Starts no more rounds and waits for those under way (serve cancels their Graph requests first).
    public func stop() {
        let threads = rounds.withLock { rounds in
            rounds.stopped = true
            defer { rounds.threads = [] }
            return rounds.threads.map(\.thread)
        }
        for thread in threads { thread.join() }
    }

    /// Logs `line` unless the same line was logged in the last hour (a sign-in that expired fails every
    /// round until someone signs in again).
    func logOnceAnHour(_ line: String, now: Date = Date()) {
        // Graph's request id differs at every try: the same failure is the line without it.
        let key = line.replacing(/\ ?\[request-id [^\]]*\]/, with: "")
        let due = logged.withLock { times -> Bool in
            if let last = times[key], now.timeIntervalSince(last) < 3600 { return false }
            times[key] = now
            return true
        }
        if due { log(line) }
    }

    /// Refreshes every calendar of every login whose last round is older than `--refresh` (serve's
    /// background loop calls it).
    public func refreshAll(now: Date = Date()) {
        for login in authenticator.logins() where !accounts.isResting(login.account, now: now) {
            for calendar in calendars(of: login) {
                if let refreshed = calendar.snapshot.refreshed,
                    now.timeIntervalSince(refreshed) < TimeInterval(refreshInterval)
                {
                    continue
                }
                startRefresh(calendar).wait()
            }
        }
    }

    // MARK: Health

    /// `/healthz` with the gateway's calendars added under `caldav`: per calendar served, in no particular
    /// order and without names, its last successful round and its last error (as ``FeedRouter/healthSummary(_:)``
    /// shows one), and for a sign-in that cannot be used, `signIn: "refused"`. The status becomes `degraded`
    /// when one of them failed. `response` is the feeds' answer.
    public func addingHealth(to response: HTTPServerResponse) -> HTTPServerResponse {
        guard response.status == 200,
            var document = (try? JSONSerialization.jsonObject(with: response.body.data)) as? [String: Any]
        else { return response }
        let formatter = ISO8601DateFormatter()
        var entries: [[String: Any]] = []
        var healthy = true
        for calendar in accounts.allCalendars() {
            let failure = calendar.lastFailure
            let refreshed = calendar.snapshot.refreshed
            var entry: [String: Any] = [
                "lastSuccess": refreshed.map { formatter.string(from: $0) as Any } ?? NSNull(),
                "lastError": failure.map { FeedRouter.healthSummary($0.message) as Any } ?? NSNull(),
                "lastErrorAt": failure.map { formatter.string(from: $0.at) as Any } ?? NSNull(),
            ]
            let refused = calendar.client == nil || accounts.isResting(calendar.login.account)
            if refused { entry["signIn"] = "refused" }
            if failure != nil || refused { healthy = false }
            entries.append(entry)
        }
        guard !entries.isEmpty else { return response }
        document["caldav"] = entries
        if !healthy { document["status"] = "degraded" }
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return response }
        return HTTPServerResponse(status: 200, headers: response.headers, body: HTTPBody(data + Data("\n".utf8)))
    }

    // MARK: Hrefs

    func rootHref() -> String { basePath + "/dav/" }

    func homeHref(_ login: DAVLogin) -> String { basePath + "/dav/" + Self.encode(login.user) + "/" }

    func calendarHref(_ login: DAVLogin, _ calendar: DAVCalendar) -> String {
        homeHref(login) + calendar.info.key + "/"
    }

    func objectHref(_ login: DAVLogin, _ calendar: DAVCalendar, _ name: String) -> String {
        calendarHref(login, calendar) + Self.encode(name)
    }

    /// A percent-encoded path segment decoded on its bytes (this runs for every href of a multiget); nil
    /// when an escape is malformed or the bytes are not UTF-8.
    static func decode<Text: StringProtocol>(_ segment: Text) -> String? {
        guard segment.utf8.contains(UInt8(ascii: "%")) else { return String(segment) }
        func digit(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        var input = Array(segment.utf8)[...]
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = input.popFirst().flatMap(digit), let low = input.popFirst().flatMap(digit) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// A path segment percent-encoded (RFC 3986 unreserved characters and `@` kept).
    static func encode(_ segment: String) -> String {
        // Worked out on the bytes: this runs for every item of a listing.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(segment.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in segment.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "@"):
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Answers

    func text(_ status: Int, _ message: String, extra: [(name: String, value: String)] = []) -> HTTPServerResponse {
        HTTPServerResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + extra,
            body: HTTPBody(Data(message.utf8)))
    }

    func notFound() -> HTTPServerResponse { text(404, "not found\n") }

    /// A DAV error (RFC 4918 §16): the precondition element and a human sentence.
    func error(
        _ status: Int, _ condition: DAVName, _ description: String, extra: [(name: String, value: String)] = []
    ) -> HTTPServerResponse {
        HTTPServerResponse(
            status: status, headers: [("Content-Type", "application/xml; charset=utf-8")] + extra,
            body: HTTPBody(DAVErrorBody.document(condition, description: description)))
    }

    func multistatus(_ document: DAVMultistatus) -> HTTPServerResponse {
        HTTPServerResponse(
            status: 207, headers: [("Content-Type", "application/xml; charset=utf-8"), ("DAV", Self.davHeader)],
            body: HTTPBody(document.serialized()))
    }
}

extension DAVGateway.Target {
    var user: String? {
        switch self {
        case .root: nil
        case .home(let user), .calendar(let user, _), .object(let user, _, _): user
        }
    }
}
