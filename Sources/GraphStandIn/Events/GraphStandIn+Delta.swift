// Stands in for Graph's `calendarView/delta` on the primary calendar: rounds of pages linked by
// `$skiptoken`s ending in a `$deltatoken`, both state tokens (replaying one gives the same answer), changes
// since a delta token's state with `@removed` entries, `Prefer: odata.maxpagesize`, the query options the
// function refuses, and 410 `syncStateNotFound` for a state the stand-in no longer has.
import Foundation

extension GraphStandIn {
    /// The calendar view a round of delta calls tracks: the window is fixed by the round's first call.
    struct DeltaScope {
        var userID: String
        var calendarID: String
        var start: Date
        var end: Date
    }

    /// What a delta token stands for: the view, and every event of its calendar (in the window or not)
    /// with its change key at the end of the round.
    struct DeltaState {
        var scope: DeltaScope
        var seen: [String: (changeKey: String, inWindow: Bool)]
    }

    /// One entry of a round: an event added or changed in the window, or an id reported `@removed`.
    enum DeltaEntry {
        case event(StoredEvent)
        case removed(String)
    }

    /// A round of delta pages, computed at its first call; pages are served from it by offset.
    struct DeltaRound {
        var entries: [DeltaEntry]
        /// The state the round's delta token will stand for.
        var next: DeltaState
    }

    /// A `$skiptoken`: a round and where its next page starts.
    struct DeltaPage {
        var round: DeltaRound
        var offset: Int
    }

    /// The page size when the request sets no `Prefer: odata.maxpagesize`, and the largest one honoured.
    static let deltaDefaultPageSize = 10
    static let deltaMaxPageSize = 1000

    /// The OData options `calendarView/delta` does not support (`api/event-delta.md`).
    static let deltaRefusedOptions = ["$select", "$expand", "$filter", "$orderby", "$search"]

    /// `GET /me/calendarView/delta`: the first call of a round (a window, or a `$deltatoken`), or one of its
    /// later pages (a `$skiptoken`).
    func serveCalendarViewDelta(_ route: GraphRoute, _ call: GraphCall, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        let refused = Self.deltaRefusedOptions.filter { call.query[$0] != nil }
        if !refused.isEmpty {
            return graphError(
                400, "ErrorInvalidUrlQuery",
                "The following parameters are not supported with change tracking over the 'CalendarView' resource: '"
                    + refused.joined(separator: ", ") + "'.", context)
        }
        let page: DeltaPage
        switch deltaPage(route, call, context) {
        case .success(let found): page = found
        case .failure(let rejection): return rejection.response
        }
        let size = Self.deltaPageSize(call)
        var response = deltaAnswer(page, size: size.value, call, context)
        if size.requested {
            response.headers.append(("Preference-Applied", "odata.maxpagesize=\(size.value)"))
        }
        return response
    }

    /// The page a call asks for: by `$skiptoken`, or the start of a new round from a `$deltatoken`'s state
    /// or from the window (a first sync).
    private func deltaPage(_ route: GraphRoute, _ call: GraphCall, _ context: RequestContext)
        -> Result<DeltaPage, Rejection>
    {
        let token = call.query["$skiptoken"] ?? call.query["$deltatoken"]
        if let token, let scope = locked({ $0.deltaResets[token] }), scope.userID == route.mailboxUserID {
            return .failure(resyncRequired(scope, call, context))
        }
        if let token = call.query["$skiptoken"] {
            guard let page = locked({ $0.deltaPages[token] }), page.round.next.scope.userID == route.mailboxUserID
            else { return .failure(syncStateNotFound(context)) }
            return .success(page)
        }
        // An empty `$deltatoken` (the Location of a reset) starts over like a first call.
        if let token = call.query["$deltatoken"], !token.isEmpty {
            let round: DeltaRound? = locked { state in
                guard let previous = state.deltaStates[token], previous.scope.userID == route.mailboxUserID else {
                    return nil
                }
                return Self.deltaRound(previous.scope, since: previous, in: state)
            }
            guard let round else { return .failure(syncStateNotFound(context)) }
            return .success(DeltaPage(round: round, offset: 0))
        }
        let range: (Date, Date)
        switch window(call, context) {
        case .success(let found): range = found
        case .failure(let rejection): return .failure(rejection)
        }
        let round: DeltaRound? = locked { state in
            guard let calendar = state.calendar(nil, of: route.mailboxUserID) else { return nil }
            let scope = DeltaScope(userID: route.mailboxUserID, calendarID: calendar.id, start: range.0, end: range.1)
            return Self.deltaRound(scope, since: nil, in: state)
        }
        guard let round else { return .failure(Rejection(response: notFound(context))) }
        return .success(DeltaPage(round: round, offset: 0))
    }

    /// One page of a round: its entries, and a nextLink to the rest or, on the last page, the deltaLink.
    private func deltaAnswer(_ page: DeltaPage, size: Int, _ call: GraphCall, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        let entries = page.round.entries
        let end = min(entries.count, page.offset + size)
        let value: [[String: Any]] = entries[min(page.offset, end)..<end].map { entry in
            switch entry {
            case .removed(let id):
                return ["@odata.type": "#microsoft.graph.event", "id": id, "@removed": ["reason": "deleted"]]
            case .event(let event):
                var json = renderForCall(event, call, context)
                json["@odata.type"] = "#microsoft.graph.event"
                return json
            }
        }
        var body: [String: Any] = ["@odata.context": baseURL + "/$metadata#Collection(event)", "value": value]
        let token = Self.randomToken(length: 32)
        if end < entries.count {
            locked { $0.deltaPages[token] = DeltaPage(round: page.round, offset: end) }
            body["@odata.nextLink"] = deltaLink(call, "$skiptoken", token)
        } else {
            locked { $0.deltaStates[token] = page.round.next }
            body["@odata.deltaLink"] = deltaLink(call, "$deltatoken", token)
        }
        return graphJSON(200, body)
    }

    /// The request's own path with only a state token as query: the token encodes the window.
    private func deltaLink(_ call: GraphCall, _ name: String, _ token: String) -> String {
        let origin = locked { $0.nextLinkOrigin } ?? server.baseURL
        return origin + call.rawPath + "?" + name + "=" + token
    }

    /// The entries of a round over `scope`: every event in the window for a first round; after `previous`,
    /// the events added to or changed in the window, and `@removed` for those deleted, moved out of the
    /// window, or added, changed or deleted outside it (as `api/event-delta.md` says Graph reports them).
    /// Removals come first, then events in calendar order.
    static func deltaRound(_ scope: DeltaScope, since previous: DeltaState?, in state: State) -> DeltaRound {
        var seen: [String: (changeKey: String, inWindow: Bool)] = [:]
        var changed: [StoredEvent] = []
        var removed: [String] = []
        for event in state.events.values
        where event.userID == scope.userID && event.calendarID == scope.calendarID && event.type != "seriesMaster" {
            let key = event.fields["changeKey"] as? String ?? ""
            let inside = event.overlaps(scope.start, scope.end)
            seen[event.id] = (key, inside)
            guard let previous else {
                if inside { changed.append(event) }
                continue
            }
            let before = previous.seen[event.id]
            if inside {
                if before?.changeKey != key || before?.inWindow != true { changed.append(event) }
            } else if before == nil || before?.changeKey != key || before?.inWindow == true {
                removed.append(event.id)
            }
        }
        if let previous {
            removed += previous.seen.keys.filter { seen[$0] == nil }
        }
        let entries =
            removed.sorted().map { DeltaEntry.removed($0) }
            + changed.sorted(by: StoredEvent.startOrder).map { DeltaEntry.event($0) }
        return DeltaRound(entries: entries, next: DeltaState(scope: scope, seen: seen))
    }

    /// The page size `Prefer: odata.maxpagesize` asks for (capped), and whether it asked.
    static func deltaPageSize(_ call: GraphCall) -> (value: Int, requested: Bool) {
        for (name, value) in preferences(in: call.headers)
        where name.caseInsensitiveCompare("odata.maxpagesize") == .orderedSame {
            if let size = Int(value), size > 0 { return (min(size, deltaMaxPageSize), true) }
        }
        return (deltaDefaultPageSize, false)
    }

    /// Graph's answer to a state token it no longer has (expired from its cache, or never issued).
    private func syncStateNotFound(_ context: RequestContext) -> Rejection {
        reject(
            410, "syncStateNotFound",
            "The sync state generation is not found. The delta token is expired and data must be synchronized again.",
            context)
    }

    /// Graph's answer to a token of a view it reset (maintenance, a mailbox move): 410 `resyncRequired`
    /// with a `Location` that starts the view over (its window and an empty `$deltatoken`).
    private func resyncRequired(_ scope: DeltaScope, _ call: GraphCall, _ context: RequestContext) -> Rejection {
        var rejection = reject(
            410, "resyncRequired", "The delta token is no longer valid, and the app must reset the sync state.",
            context)
        let origin = locked { $0.nextLinkOrigin } ?? server.baseURL
        let stamp = ISO8601DateFormatter()
        let window =
            "startDateTime=" + stamp.string(from: scope.start) + "&endDateTime=" + stamp.string(from: scope.end)
        rejection.response.headers.append(("Location", origin + call.rawPath + "?" + window + "&$deltatoken="))
        return rejection
    }

    // MARK: Test knobs

    /// Forgets every `$skiptoken` and `$deltatoken` issued so far, as Graph does when its delta token cache
    /// overflows: the next call with one of them is answered 410 `syncStateNotFound`.
    public func expireDeltaTokens() {
        locked { state in
            state.deltaPages = [:]
            state.deltaStates = [:]
        }
    }

    /// Resets every view tracked by a `$skiptoken` or `$deltatoken` issued so far, as Graph does after
    /// maintenance or a tenant migration: the next call with one of them is answered 410 `resyncRequired`
    /// with a `Location` that starts the view over.
    public func resetDeltaSync() {
        locked { state in
            for (token, page) in state.deltaPages { state.deltaResets[token] = page.round.next.scope }
            for (token, tracked) in state.deltaStates { state.deltaResets[token] = tracked.scope }
            state.deltaPages = [:]
            state.deltaStates = [:]
        }
    }
}
