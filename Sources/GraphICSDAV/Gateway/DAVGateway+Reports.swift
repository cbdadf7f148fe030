import Foundation
import GraphICSMirror
import GraphICSServe
import ICalBridge

/// GET, and the REPORTs: calendar-multiget, calendar-query (recurrence-aware time ranges), sync-collection.
extension DAVGateway {
    /// The most hrefs one calendar-multiget may name.
    static let multigetLimit = 1000

    func get(_ request: HTTPServerRequest, target: Target, login: DAVLogin) -> HTTPServerResponse {
        guard case .object(_, let key, let name) = target else {
            return text(
                405, "only calendar objects are read with GET; use PROPFIND or REPORT\n",
                extra: [("Allow", Self.allowed)])
        }
        guard let calendar = calendar(key, of: login), let item = fresh(calendar).item(named: name) else {
            return notFound()
        }
        if let failure = item.failure { return text(500, failure + "\n") }
        var headers: [(name: String, value: String)] = [("Content-Type", Self.objectType), ("ETag", item.etag)]
        headers.append(("Cache-Control", "private, no-cache"))
        if let match = request.header("If-None-Match"), Self.etags(match).contains(item.etag) || match == "*" {
            return HTTPServerResponse(status: 304, headers: headers)
        }
        return HTTPServerResponse(status: 200, headers: headers, body: HTTPBody(item.body))
    }

    /// The entity tags of an `If-Match` or `If-None-Match` value (`W/` dropped).
    static func etags(_ value: String) -> [String] {
        value.split(separator: ",").map { tag in
            var trimmed = tag.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("W/") { trimmed.removeFirst(2) }
            return trimmed
        }
    }

    func report(_ request: HTTPServerRequest, target: Target, login: DAVLogin) throws -> HTTPServerResponse {
        let report = try DAVRequestBody.report(request.body)
        let minimal = Self.wantsMinimal(request)
        guard case .calendar(_, let key) = target else {
            if case .unsupported(let name) = report {
                return error(403, .dav("supported-report"), "the report \(name.local) is not served")
            }
            return error(403, .dav("supported-report"), "reports are answered on a calendar collection")
        }
        guard let calendar = calendar(key, of: login) else { return notFound() }
        switch report {
        case .multiget(let properties, let hrefs):
            guard hrefs.count <= Self.multigetLimit else {
                return error(
                    403, .dav("number-of-matches-within-limits"),
                    "a calendar-multiget names at most \(Self.multigetLimit) hrefs")
            }
            let snapshot = fresh(calendar)
            let prefix = calendarHref(login, calendar)
            var responses: [DAVResponse] = []
            responses.reserveCapacity(hrefs.count)
            for href in hrefs {
                let path = Self.path(of: href)
                guard path.hasPrefix(prefix), let name = Self.decode(path.dropFirst(prefix.count)),
                    let item = snapshot.item(named: name)
                else {
                    responses.append(DAVResponse(href: href, status: 404))
                    continue
                }
                responses.append(response(href, .object(calendar, item), properties, login: login, minimal: minimal))
            }
            return multistatus(DAVMultistatus(responses: responses))
        case .query(let properties, let filter):
            let snapshot = fresh(calendar)
            var items = snapshot.items
            if let range = Self.eventRange(filter), let start = range.start, let end = range.end {
                // A range reaching outside the window: the items Graph has there are held, then matched. An
                // open-ended range is answered from the window and the items held outside it.
                let window = DAVCalendar.window(login, now: Date())
                let span = SyncWindow(start: start, end: end)
                if span.start < window.start || span.end > window.end {
                    do {
                        try calendar.hold(span, outside: window)
                        items = calendar.snapshot.items
                    } catch {
                        log("graph-ics serve: reading \(calendar.info.name) outside the window failed: \(error)")
                    }
                }
            }
            let matching = items.filter { DAVFilter.matches(filter, $0) }
            let prefix = calendarHref(login, calendar)
            let responses = matching.map {
                response(
                    prefix + Self.encode($0.name), .object(calendar, $0), properties, login: login, minimal: minimal)
            }
            return multistatus(DAVMultistatus(responses: responses))
        case .syncCollection(let token, _, let limit, let properties):
            let snapshot = fresh(calendar)
            var since: Int64 = 0
            if !token.isEmpty {
                guard let parsed = DAVSyncToken(token), parsed.generation == snapshot.generation,
                    parsed.sequence >= snapshot.floor, parsed.sequence <= snapshot.sequence
                else {
                    return error(
                        403, .dav("valid-sync-token"), "the sync token is unknown or too old: sync again from the start"
                    )
                }
                since = parsed.sequence
            }
            var responses: [DAVResponse] = []
            let prefix = calendarHref(login, calendar)
            for item in snapshot.items where item.sequence > since {
                responses.append(
                    response(
                        prefix + Self.encode(item.name), .object(calendar, item), properties, login: login,
                        minimal: minimal))
            }
            if since > 0 {
                for (name, sequence) in snapshot.removed.sorted(by: { $0.key < $1.key }) where sequence > since {
                    responses.append(DAVResponse(href: prefix + Self.encode(name), status: 404))
                }
            }
            if let limit, limit >= 0, responses.count > limit {
                return error(
                    507, .dav("number-of-matches-within-limits"),
                    "more than \(limit) changes: ask without a limit")
            }
            return multistatus(DAVMultistatus(responses: responses, syncToken: snapshot.syncToken))
        case .unsupported(let name):
            return error(403, .dav("supported-report"), "the report \(name.local) is not served")
        }
    }

    /// The path of an href (an absolute URL's path, or the href itself).
    static func path(of href: String) -> String {
        if href.hasPrefix("/") { return href }
        guard let url = URL(string: href), let scheme = url.scheme, scheme.hasPrefix("http") else { return href }
        return url.path.isEmpty ? "/" : (URLComponents(string: href)?.percentEncodedPath ?? url.path)
    }

    /// The time range of the query's VEVENT filter, if it has one.
    static func eventRange(_ filter: DAVComponentFilter?) -> DAVTimeRange? {
        guard let filter, filter.name.uppercased() == "VCALENDAR" else { return nil }
        return filter.components.first { $0.name.uppercased() == "VEVENT" }?.timeRange
    }
}

/// calendar-query filters (RFC 4791 §9.7) evaluated against an item: component names, recurrence-aware time
/// ranges (a series matches when one of its occurrences overlaps the range, and only then), and property
/// filters over the item's VEVENT lines.
enum DAVFilter {
    static func matches(_ filter: DAVComponentFilter?, _ item: DAVItem) -> Bool {
        guard let filter else { return true }
        guard filter.name.uppercased() == "VCALENDAR" else { return false }
        if filter.isNotDefined { return false }
        for component in filter.components where !matchesComponent(component, item) { return false }
        return true
    }

    private static func matchesComponent(_ filter: DAVComponentFilter, _ item: DAVItem) -> Bool {
        let name = filter.name.uppercased()
        let present =
            name == "VEVENT" || (name == "VTIMEZONE" && item.body.range(of: Data("BEGIN:VTIMEZONE".utf8)) != nil)
        if filter.isNotDefined { return !present }
        guard present else { return false }
        guard name == "VEVENT" else { return true }
        if let range = filter.timeRange {
            let start = range.start.map { Int64($0.timeIntervalSince1970) }
            let end = range.end.map { Int64($0.timeIntervalSince1970) }
            guard item.spans.contains(where: { $0.overlaps(start: start, end: end) }) else { return false }
        }
        if !filter.properties.isEmpty {
            let lines = UnfoldedLines.strings(in: item.body)
            for property in filter.properties where !matchesProperty(property, lines) { return false }
        }
        return true
    }

    private static func matchesProperty(_ filter: DAVPropertyFilter, _ lines: [String]) -> Bool {
        let name = filter.name.uppercased()
        var values: [String] = []
        var components: [String] = []
        for line in lines {
            let upper = line.uppercased()
            if upper.hasPrefix("BEGIN:") {
                components.append(String(upper.dropFirst(6)))
            } else if upper.hasPrefix("END:") {
                _ = components.popLast()
            } else if components.last == "VEVENT" {
                let head = upper.prefix { $0 != ":" && $0 != ";" }
                if head == name { values.append(DAVKeptProperties.value(of: line)) }
            }
        }
        if filter.isNotDefined { return values.isEmpty }
        guard !values.isEmpty else { return false }
        guard let match = filter.textMatch else { return true }
        let found = values.contains { value in
            if match.collation == "i;octet" { return value.contains(match.text) }
            return value.lowercased().contains(match.text.lowercased())
        }
        return found != match.negate
    }
}
