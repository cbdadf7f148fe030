import Foundation
import GraphICSServe

/// PROPFIND and PROPPATCH, and the properties of each resource.
extension DAVGateway {
    /// A resource properties are asked of.
    enum Resource {
        case root
        case home
        case calendar(DAVCalendar, DAVSnapshot)
        case object(DAVCalendar, DAVItem)
    }

    /// The properties `allprop` and `propname` name, per resource.
    func names(of resource: Resource) -> [DAVName] {
        switch resource {
        case .root:
            return [.dav("resourcetype"), .dav("current-user-principal"), .dav("displayname")]
        case .home:
            return [
                .dav("resourcetype"), .dav("displayname"), .dav("current-user-principal"), .dav("principal-URL"),
                .caldav("calendar-home-set"), .caldav("calendar-user-address-set"),
                .dav("current-user-privilege-set"),
            ]
        case .calendar:
            return [
                .dav("resourcetype"), .dav("displayname"), .appleICal("calendar-color"), .calendarServer("getctag"),
                .dav("sync-token"), .dav("supported-report-set"), .caldav("supported-calendar-component-set"),
                .dav("current-user-privilege-set"), .dav("owner"), .caldav("supported-calendar-data"),
                .caldav("max-resource-size"),
            ]
        case .object:
            return [.dav("resourcetype"), .dav("getetag"), .dav("getcontenttype"), .dav("getcontentlength")]
        }
    }

    /// The value of `name` on `resource` (the property element with its content); nil when the resource has
    /// no such property (a 404 propstat).
    func value(_ name: DAVName, of resource: Resource, login: DAVLogin) -> DAVElement? {
        func element(_ children: [DAVElement] = [], text: String = "") -> DAVElement {
            DAVElement(name, text: text, children: children)
        }
        func href(_ value: String) -> DAVElement { DAVElement(.dav("href"), text: value) }
        switch (name.namespace, name.local) {
        case (DAVName.davNamespace, "current-user-principal"):
            return element([href(homeHref(login))])
        case (DAVName.davNamespace, "principal-URL"), (DAVName.davNamespace, "owner"):
            if case .object = resource { return nil }
            return element([href(homeHref(login))])
        case (DAVName.davNamespace, "principal-collection-set"):
            return element([href(rootHref())])
        case (DAVName.caldavNamespace, "calendar-home-set"):
            if case .object = resource { return nil }
            if case .calendar = resource { return nil }
            return element([href(homeHref(login))])
        case (DAVName.caldavNamespace, "calendar-user-address-set"):
            guard case .home = resource, let mailbox = login.mailbox else { return nil }
            return element([href("mailto:" + mailbox)])
        case (DAVName.davNamespace, "resourcetype"):
            switch resource {
            case .root: return element([DAVElement(.dav("collection"))])
            case .home: return element([DAVElement(.dav("collection")), DAVElement(.dav("principal"))])
            case .calendar: return element([DAVElement(.dav("collection")), DAVElement(.caldav("calendar"))])
            case .object: return element()
            }
        case (DAVName.davNamespace, "displayname"):
            switch resource {
            case .root: return element(text: "graph-ics")
            case .home: return element(text: login.user)
            case .calendar(let calendar, _): return element(text: calendar.info.name)
            case .object: return nil
            }
        case (DAVName.davNamespace, "current-user-privilege-set"):
            var privileges = ["read", "read-current-user-privilege-set"]
            switch resource {
            case .calendar(let calendar, _), .object(let calendar, _):
                if writable(calendar, login) {
                    privileges += ["write", "write-content", "write-properties", "bind", "unbind"]
                } else {
                    privileges += ["write-properties"]
                }
            default: break
            }
            return element(privileges.map { DAVElement(.dav("privilege"), children: [DAVElement(.dav($0))]) })
        default:
            break
        }
        switch resource {
        case .calendar(let calendar, let snapshot):
            return calendarValue(name, calendar, snapshot)
        case .object(_, let item):
            return objectValue(name, item)
        default:
            return nil
        }
    }

    private func calendarValue(_ name: DAVName, _ calendar: DAVCalendar, _ snapshot: DAVSnapshot) -> DAVElement? {
        func element(_ children: [DAVElement] = [], text: String = "") -> DAVElement {
            DAVElement(name, text: text, children: children)
        }
        switch (name.namespace, name.local) {
        case (DAVName.appleICalNamespace, "calendar-color"):
            guard let color = calendar.keptProperty("calendar-color") ?? calendar.info.color else { return nil }
            return element(text: color)
        case (DAVName.appleICalNamespace, "calendar-order"):
            return calendar.keptProperty("calendar-order").map { element(text: $0) }
        case (DAVName.calendarServerNamespace, "getctag"):
            return element(text: snapshot.ctag)
        case (DAVName.davNamespace, "sync-token"):
            return element(text: snapshot.syncToken)
        case (DAVName.davNamespace, "supported-report-set"):
            let reports: [DAVName] = [.caldav("calendar-multiget"), .caldav("calendar-query"), .dav("sync-collection")]
            return element(
                reports.map {
                    DAVElement(
                        .dav("supported-report"), children: [DAVElement(.dav("report"), children: [DAVElement($0)])])
                })
        case (DAVName.caldavNamespace, "supported-calendar-component-set"):
            return element([DAVElement(.caldav("comp"), attributes: ["name": "VEVENT"])])
        case (DAVName.caldavNamespace, "supported-calendar-data"):
            return element([
                DAVElement(.caldav("calendar-data"), attributes: ["content-type": "text/calendar", "version": "2.0"])
            ])
        case (DAVName.caldavNamespace, "max-resource-size"):
            return element(text: "1048576")
        default:
            return nil
        }
    }

    private func objectValue(_ name: DAVName, _ item: DAVItem) -> DAVElement? {
        switch (name.namespace, name.local) {
        case (DAVName.davNamespace, "getetag"): return DAVElement(name, text: item.etag)
        case (DAVName.davNamespace, "getcontenttype"): return DAVElement(name, text: Self.objectType)
        case (DAVName.davNamespace, "getcontentlength"): return DAVElement(name, text: String(item.body.count))
        case (DAVName.caldavNamespace, "calendar-data"):
            return DAVElement(name, text: String(decoding: item.body, as: UTF8.self))
        default: return nil
        }
    }

    static let objectType = "text/calendar; charset=utf-8; component=vevent"

    /// Whether the login may change events of the calendar.
    func writable(_ calendar: DAVCalendar, _ login: DAVLogin) -> Bool {
        !login.readOnly && calendar.info.canEdit && calendar.client != nil
    }

    /// One `D:response` for `resource`: a 200 propstat with the values found, a 404 one with the names not
    /// found (left out when the client asked for a minimal answer).
    func response(
        _ href: String, _ resource: Resource, _ selection: DAVPropertySelection, login: DAVLogin, minimal: Bool
    ) -> DAVResponse {
        var found: [DAVElement] = []
        var missing: [DAVElement] = []
        switch selection {
        case .names:
            return DAVResponse(
                href: href,
                propstats: [DAVPropstat(status: 200, properties: names(of: resource).map { DAVElement($0) })])
        case .all(let include):
            for name in names(of: resource) + include {
                if let value = value(name, of: resource, login: login) { found.append(value) }
            }
        case .properties(let names):
            for name in names {
                if let value = value(name, of: resource, login: login) {
                    found.append(value)
                } else {
                    missing.append(DAVElement(name))
                }
            }
        }
        // An item Outlook's version of cannot be served: its content's properties fail, with the reason.
        var failed: [DAVElement] = []
        var description: String?
        if case .object(_, let item) = resource, let failure = item.failure {
            let isContent = { (element: DAVElement) in Self.contentProperties.contains(element.name) }
            failed = (found + missing).filter(isContent).map { DAVElement($0.name) }
            found.removeAll(where: isContent)
            missing.removeAll(where: isContent)
            description = failure
        }
        var propstats: [DAVPropstat] = []
        if !found.isEmpty || (missing.isEmpty && failed.isEmpty) {
            propstats.append(DAVPropstat(status: 200, properties: found))
        }
        if !failed.isEmpty { propstats.append(DAVPropstat(status: 500, properties: failed)) }
        if !missing.isEmpty, !minimal { propstats.append(DAVPropstat(status: 404, properties: missing)) }
        return DAVResponse(href: href, propstats: propstats, description: description)
    }

    /// The properties of a calendar object that come from its content.
    static let contentProperties: Set<DAVName> = [
        .dav("getetag"), .dav("getcontenttype"), .dav("getcontentlength"), .caldav("calendar-data"),
    ]

    /// `Prefer: return=minimal` (RFC 7240) or `Brief: t`.
    static func wantsMinimal(_ request: HTTPServerRequest) -> Bool {
        if let prefer = request.header("Prefer"), prefer.lowercased().contains("return=minimal") { return true }
        return request.header("Brief")?.lowercased() == "t"
    }

    // MARK: PROPFIND

    func propfind(_ request: HTTPServerRequest, target: Target, login: DAVLogin) throws -> HTTPServerResponse {
        let depth = request.header("Depth")?.trimmingCharacters(in: .whitespaces).lowercased() ?? "0"
        guard depth == "0" || depth == "1" else {
            return error(
                403, .dav("propfind-finite-depth"), "PROPFIND with Depth: infinity is not answered; use 0 or 1")
        }
        let selection = try DAVRequestBody.propfind(request.body)
        let minimal = Self.wantsMinimal(request)
        var responses: [DAVResponse] = []
        switch target {
        case .root:
            responses.append(response(rootHref(), .root, selection, login: login, minimal: minimal))
            if depth == "1" {
                responses.append(response(homeHref(login), .home, selection, login: login, minimal: minimal))
            }
        case .home:
            responses.append(response(homeHref(login), .home, selection, login: login, minimal: minimal))
            if depth == "1" {
                for calendar in calendars(of: login) {
                    let snapshot = calendar.snapshot
                    responses.append(
                        response(
                            calendarHref(login, calendar), .calendar(calendar, snapshot), selection, login: login,
                            minimal: minimal))
                }
            }
        case .calendar(_, let key):
            guard let calendar = calendar(key, of: login) else { return notFound() }
            let snapshot = fresh(calendar)
            responses.append(
                response(
                    calendarHref(login, calendar), .calendar(calendar, snapshot), selection, login: login,
                    minimal: minimal))
            if depth == "1" {
                responses.reserveCapacity(snapshot.items.count + 1)
                let prefix = calendarHref(login, calendar)
                for item in snapshot.items {
                    responses.append(
                        response(
                            prefix + Self.encode(item.name), .object(calendar, item), selection, login: login,
                            minimal: minimal))
                }
            }
        case .object(_, let key, let name):
            guard let calendar = calendar(key, of: login) else { return notFound() }
            guard let item = fresh(calendar).item(named: name) else { return notFound() }
            responses.append(
                response(
                    objectHref(login, calendar, name), .object(calendar, item), selection, login: login,
                    minimal: minimal))
        }
        return multistatus(DAVMultistatus(responses: responses))
    }

    // MARK: PROPPATCH

    /// Properties a login may set on a calendar, kept per login: its colour and its place in the list.
    static let settable: [DAVName: String] = [
        .appleICal("calendar-color"): "calendar-color", .appleICal("calendar-order"): "calendar-order",
    ]

    func proppatch(_ request: HTTPServerRequest, target: Target, login: DAVLogin) throws -> HTTPServerResponse {
        guard case .calendar(_, let key) = target else {
            return error(403, .dav("cannot-modify-protected-property"), "only a calendar's colour and order can be set")
        }
        guard let calendar = calendar(key, of: login) else { return notFound() }
        let update = try DAVRequestBody.propertyUpdate(request.body)
        var changes: [(String, String?)] = []
        var refused: [DAVElement] = []
        var accepted: [DAVElement] = []
        for element in update.set {
            if let key = Self.settable[element.name] {
                changes.append((key, element.text.trimmingCharacters(in: .whitespacesAndNewlines)))
                accepted.append(DAVElement(element.name))
            } else {
                refused.append(DAVElement(element.name))
            }
        }
        for name in update.remove {
            if let key = Self.settable[name] {
                changes.append((key, nil))
                accepted.append(DAVElement(name))
            } else {
                refused.append(DAVElement(name))
            }
        }
        var propstats: [DAVPropstat] = []
        if refused.isEmpty {
            do {
                try calendar.setKeptProperties(changes)
            } catch {
                return text(503, "the calendar's settings cannot be saved now\n", extra: [("Retry-After", "60")])
            }
            propstats.append(DAVPropstat(status: 200, properties: accepted))
        } else {
            // RFC 4918 §9.2: all or nothing; the others fail with 424.
            propstats.append(DAVPropstat(status: 403, properties: refused))
            if !accepted.isEmpty { propstats.append(DAVPropstat(status: 424, properties: accepted)) }
        }
        return multistatus(
            DAVMultistatus(responses: [DAVResponse(href: calendarHref(login, calendar), propstats: propstats)]))
    }
}
