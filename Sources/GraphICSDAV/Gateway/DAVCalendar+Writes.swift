import Foundation
import GraphICS
import GraphICSMirror
import GraphICSSync
import ICalBridge

/// Why a write is not sent: the status, the DAV precondition and a human sentence.
struct DAVWriteRefusal: Error, Equatable {
    var status: Int
    var condition: DAVName
    var message: String

    static func invalid(_ message: String) -> DAVWriteRefusal {
        DAVWriteRefusal(status: 403, condition: .caldav("valid-calendar-object-resource"), message: message)
    }

    static func stale(_ message: String) -> DAVWriteRefusal {
        DAVWriteRefusal(status: 412, condition: .dav("precondition-failed"), message: message)
    }

    /// A change the mail rule says would mail attendees, under `--invitations refuse`.
    static func invitations(_ login: DAVLogin, attendees: Int, doing: String) -> DAVWriteRefusal {
        DAVWriteRefusal(
            status: 403, condition: .dav("need-privileges"),
            message: "the event is a meeting with \(attendees) attendee(s); \(doing) would make Outlook mail them, and"
                + " this login may not send invitations; run graph-ics dav add \(login.user) --invitations send"
                + " (after graph-ics dav remove \(login.user)) to allow that")
    }
}

/// What a PUT did.
enum DAVWriteOutcome: Equatable {
    case created
    /// Changed in Outlook, or only what Outlook does not hold (nothing sent).
    case updated(sent: Bool)
}

/// The preconditions of a write (RFC 7232): `If-Match` tags and `If-None-Match: *`.
struct DAVPreconditions {
    var ifMatch: [String]?
    var ifNoneMatchAny: Bool

    func check(_ existing: DAVItem?) throws(DAVWriteRefusal) {
        if ifNoneMatchAny, existing != nil {
            throw .stale("the resource exists already (If-None-Match: *)")
        }
        if let tags = ifMatch {
            guard let existing, tags.contains("*") || tags.contains(existing.etag) else {
                throw .stale("the resource changed since it was read (If-Match): read it again")
            }
        }
    }
}

/// Writes: each PUT and DELETE is checked against the item as last served, mapped with the import's mapping,
/// compared with ``EventChange`` against the event as the mirror last stored it, decided by the one
/// ``MailingRule``, sent, and the item rendered again.
extension DAVCalendar {
    /// The import's settings for the calendar; attendees kept as attendees so that the mail rule sees them.
    var importSettings: ImportSettings {
        ImportSettings(calendarID: info.isDefault ? nil : info.id, onDuplicate: .skip, notifiesAttendees: true)
    }

    func importOptions(file: String) -> ImportOptions {
        var options = ImportOptions()
        options.strict = true
        options.userZone = exportOptions.fallbackZone
        options.file = file
        return options
    }

    /// Creates or changes the item `name` from the iCalendar text a client PUT.
    func put(
        name: String, body: Data, preconditions: DAVPreconditions, mailbox: String?
    ) throws -> DAVWriteOutcome {
        try withWork { working in
            let current = snapshot
            let existing = current.item(named: name)
            try preconditions.check(existing)
            if let failure = existing?.failure {
                // Its Outlook version is unknown here: a change would be made blind.
                throw DAVWriteRefusal(
                    status: 409, condition: .dav("precondition-failed"),
                    message: "\(failure); change it in Outlook, or delete it here")
            }
            let options = importOptions(file: name)
            let plan: ImportPlan
            do throws(ICalBridgeError) {
                plan = try ICSToGraph.plan(body, options: options, settings: importSettings)
            } catch {
                throw DAVWriteRefusal.invalid(error.message)
            }
            guard plan.sourceEvents > 0 else {
                throw DAVWriteRefusal(
                    status: 403, condition: .caldav("supported-calendar-component"),
                    message: "only events (VEVENT) are kept in Outlook calendars")
            }
            if let error = plan.diagnostics.first(where: { $0.severity == .error }) {
                throw DAVWriteRefusal.invalid((error.line.map { "line \($0): " } ?? "") + error.message)
            }
            if let refusal = SyncPush.shapeRefusal(plan.events) { throw DAVWriteRefusal.invalid(refusal) }
            guard let event = plan.events.first else { throw DAVWriteRefusal.invalid("the body holds no event") }
            if let other = current.byUID[event.sourceUID], other != name {
                throw DAVWriteRefusal(
                    status: 403, condition: .caldav("no-uid-conflict"),
                    message: "the UID \(event.sourceUID) is held by \(other) already")
            }
            let kept = DAVKeptProperties(from: body)
            if let existing {
                guard existing.uid == event.sourceUID else {
                    throw DAVWriteRefusal(
                        status: 403, condition: .caldav("no-uid-conflict"),
                        message: "a resource keeps its UID (\(existing.uid)); save a new UID as a new resource")
                }
                let sent = try update(existing, to: event, body: body, kept: kept, mailbox: mailbox, working)
                return .updated(sent: sent)
            }
            try create(name: name, event: event, body: body, kept: kept, working)
            return .created
        }
    }

    /// Deletes the item `name` in Outlook.
    func delete(name: String, preconditions: DAVPreconditions) throws -> Bool {
        try withWork { working in
            guard let existing = snapshot.item(named: name) else { return false }
            try preconditions.check(existing)
            guard let client else { throw DAVGatewayError.noSession }
            let baseline = try self.baseline(of: existing, working)
            if let baseline {
                let state = try GraphItemState(baseline, operation: "reading event \(existing.graphID)")
                if state.mails(.delete), login.invitations == .refuse {
                    throw DAVWriteRefusal.invitations(login, attendees: state.attendees, doing: "deleting it")
                }
                do {
                    if let changeKey = state.changeKey {
                        try client.deleteEvent(
                            id: existing.graphID, ifMatch: GraphItemState.etag(forChangeKey: changeKey))
                    } else {
                        try client.deleteEvent(id: existing.graphID)
                    }
                } catch let error as GraphError where error.kind == .notFound {
                    // Gone meanwhile: what was asked for.
                }
            }
            try record(removing: existing.name, working)
            return true
        }
    }

    // MARK: Create and update

    private func create(
        name: String, event: PlannedEvent, body: Data, kept: DAVKeptProperties, _ working: Working
    ) throws {
        guard let client else { throw DAVGatewayError.noSession }
        if EventImporter.isCancellation(event) {
            throw DAVWriteRefusal.invalid("the event is cancelled (STATUS:CANCELLED): nothing to create")
        }
        let attendees = event.payload.attendees?.count ?? 0
        if attendees > 0, login.invitations == .refuse {
            throw DAVWriteRefusal.invitations(login, attendees: attendees, doing: "creating it")
        }
        // The import finds an event a killed gateway made already by its source UID (its transactionId comes
        // from the UID), so a PUT sent again never makes a second one.
        let report = EventImporter(client: client).run([ImportItem(file: name, event: event)])
        if let stop = report.stoppedBy { throw stop }
        guard let result = report.results.first, let id = result.eventID,
            result.action == .created || result.action == .skipped
        else {
            throw DAVWriteRefusal(
                status: 502, condition: .caldav("valid-calendar-object-resource"),
                message: report.results.first?.error ?? "Outlook did not create the event")
        }
        let served = Self.withoutMethod(body)
        let placeholder = DAVItem(
            name: name, uid: event.sourceUID, graphID: id, isSeries: event.payload.recurrence != nil, body: served,
            graphBody: Data(), servesClient: true, etag: DAVItem.etag(of: served), spans: [], sequence: 0,
            eventIDs: [], master: nil, kept: kept, outside: false)
        try settle(placeholder, working)
    }

    /// Renders an item a write changed through a mirror round, as every later round renders it (same bytes,
    /// same ETag); from Graph directly when the round does not show it (outside the window).
    private func settle(_ item: DAVItem, _ working: Working) throws {
        let rendered = try refresh(working, now: Date(), pending: [item])
        if rendered.contains(item.graphID) {
            try publish(working)
        } else {
            try rerender(item, working)
        }
    }

    /// Sends what changed; returns whether anything was sent to Graph.
    private func update(
        _ existing: DAVItem, to event: PlannedEvent, body: Data, kept: DAVKeptProperties, mailbox: String?,
        _ working: Working
    ) throws -> Bool {
        guard let client else { throw DAVGatewayError.noSession }
        guard let baseline = try self.baseline(of: existing, working) else {
            throw DAVWriteRefusal(
                status: 409, condition: .dav("precondition-failed"),
                message: "the event was deleted in Outlook; it is removed here at the next sync")
        }
        let state = try GraphItemState(baseline, operation: "reading event \(existing.graphID)")
        let options = importOptions(file: existing.name)
        // A series' overrides and EXDATEs are applied again only when they differ from the served ones.
        let served = try? ICSToGraph.plan(existing.body, options: options, settings: importSettings)
        let overridesChanged =
            event.payload.recurrence != nil && event.followUps != (served?.events.first?.followUps ?? [])
        // The user's own answer to an invitation is an accept, tentative or decline, never a PATCH of attendees.
        let answering = state.standing.isOrganizer == false
        let plan: UpdatePlan
        switch state.decideUpdate(
            to: event, options: options, appliesOccurrences: overridesChanged, answering: answering,
            mayMail: login.invitations == .send)
        {
        case .refused(let reason):
            throw DAVWriteRefusal(status: 403, condition: .caldav("valid-calendar-object-resource"), message: reason)
        case .held(let attendees):
            throw DAVWriteRefusal.invitations(login, attendees: attendees, doing: "changing it")
        case .send(let decided): plan = decided
        }
        var sent = false
        if answering, let mailbox, let answer = Self.answer(of: mailbox, in: body),
            answer != Self.answer(of: mailbox, in: existing.body)
        {
            try client.respond(
                toEvent: existing.graphID, with: answer, comment: nil, sendResponse: login.invitations == .send)
            sent = true
        }
        if plan.sends {
            if let patch = try plan.patch(of: event, graph: state) {
                let etag = state.changeKey.map(GraphItemState.etag(forChangeKey:)) ?? "*"
                _ = try client.updateEvent(id: existing.graphID, patch: patch, ifMatch: etag)
            }
            if plan.appliesOccurrences {
                let result = try EventImporter(client: client).finishSeries(
                    of: ImportItem(file: existing.name, event: event), seriesID: existing.graphID,
                    attendees: state.attendees)
                if result.action == .failed {
                    throw DAVWriteRefusal(
                        status: 502, condition: .caldav("valid-calendar-object-resource"),
                        message: result.error ?? "Outlook did not take the changed occurrences")
                }
            }
            sent = true
        }
        // The client's text is served from now on (until Outlook changes the event).
        var item = existing
        item.kept = kept
        item.body = Self.withoutMethod(body)
        item.servesClient = true
        if sent {
            try settle(item, working)
        } else if item.body != existing.body {
            try record(written: item, working)
        }
        return sent
    }

    /// The user's PARTSTAT in an iCalendar text, as an answer (ACCEPTED, TENTATIVE, DECLINED); nil otherwise.
    static func answer(of mailbox: String, in body: Data) -> EventResponse? {
        let address = "mailto:" + mailbox.lowercased()
        var inMaster = false
        var isOverride = false
        var found: EventResponse?
        for line in UnfoldedLines.strings(in: body) {
            let upper = line.uppercased()
            if upper == "BEGIN:VEVENT" {
                inMaster = true
                isOverride = false
            } else if upper == "END:VEVENT" {
                inMaster = false
            } else if inMaster, upper.hasPrefix("RECURRENCE-ID") {
                isOverride = true
            } else if inMaster, !isOverride, upper.hasPrefix("ATTENDEE"),
                DAVKeptProperties.value(of: line).lowercased() == address
            {
                let partstat = upper.firstMatch(of: /;PARTSTAT=([A-Z-]+)/).map { String($0.1) }
                switch partstat {
                case "ACCEPTED": found = .accept
                case "TENTATIVE": found = .tentative
                case "DECLINED": found = .decline
                default: found = nil
                }
            }
        }
        return found
    }

    // MARK: Baselines and rendering

    /// The event (a series: its master) as last served: the mirror's stored version, else Graph's now; nil
    /// when Graph no longer has it.
    func baseline(of item: DAVItem, _ working: Working) throws -> Data? {
        if !item.isSeries, let stored = try working.mirror.storedEvent(id: item.graphID) { return stored.raw }
        if item.isSeries, let master = item.master { return master }
        guard let client else { throw DAVGatewayError.noSession }
        do {
            return try client.event(id: item.graphID)
        } catch let error as GraphError where error.kind == .notFound {
            return nil
        }
    }

    /// Renders `item` again from Graph as it is now (after a write), records it and publishes.
    func rerender(_ item: DAVItem, _ working: Working) throws {
        guard let client else { throw DAVGatewayError.noSession }
        var window = Self.window(login, now: Date())
        let json = try client.event(id: item.graphID)
        let object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any]
        let isSeries = object?["type"] as? String == "seriesMaster"
        var source = PullItemSource(graphID: item.graphID, isSeries: isSeries, events: [json])
        var master: Data?
        if isSeries {
            master = json
            source.events = []
            func read(_ range: SyncWindow) throws {
                try client.instances(seriesMasterID: item.graphID, start: range.startDate, end: range.endDate) { page in
                    for entry in GraphPage.entries(in: page, fields: ["id", "changeKey"]) ?? [] {
                        guard let id = entry.fields["id"] else { continue }
                        source.events.append(entry.raw)
                        source.occurrenceKeys[id] = entry.fields["changeKey"] ?? ""
                    }
                }
            }
            try read(window)
            // A series wholly outside the window: its occurrences from its first on, two years at most.
            if source.events.isEmpty, let first = DAVSpan.of(json) {
                window = SyncWindow(start: first.start - 86_400, end: first.start + 2 * 366 * 86_400)
                try read(window)
            }
        }
        try record(item, source: source, master: master, window: window, working)
    }

    private func record(
        _ item: DAVItem, source: PullItemSource, master: Data?, window: SyncWindow, _ working: Working
    ) throws {
        var diagnostics: [Diagnostic] = []
        var rendered = try render(source, master: master, existing: item, window: window, diagnostics: &diagnostics)
        if let failure = rendered.failure {
            throw DAVWriteRefusal(
                status: 502, condition: .caldav("valid-calendar-object-resource"),
                message: "Outlook holds the event, but it cannot be served: \(failure)")
        }
        rendered.outside = !rendered.spans.contains { window.overlaps(start: $0.start, end: $0.end) }
        // Rendered after a write: the client's text is served.
        rendered.body = item.body
        rendered.servesClient = true
        rendered.etag = DAVItem.etag(of: item.body)
        try record(written: rendered, previous: item, working)
    }

    /// Records an item a write changed (a new sequence when its body changed) and publishes.
    private func record(written item: DAVItem, previous: DAVItem? = nil, _ working: Working) throws {
        var rendered = item
        rendered.etag = DAVItem.etag(of: item.body)
        let before = previous.flatMap { snapshot.item(named: $0.name) } ?? snapshot.item(named: item.name)
        let store = working.store
        var meta = try store.meta()
        if rendered.body != before?.body {
            meta.sequence += 1
            rendered.sequence = meta.sequence
        } else {
            rendered.sequence = before?.sequence ?? meta.sequence
        }
        try store.database.transaction {
            try store.write(rendered)
            try store.save(meta)
        }
        try publish(working)
    }

    private func record(removing name: String, _ working: Working) throws {
        let store = working.store
        var meta = try store.meta()
        meta.sequence += 1
        try store.database.transaction {
            try store.remove(name, sequence: meta.sequence, now: Int64(Date().timeIntervalSince1970))
            try store.save(meta)
        }
        try publish(working)
    }

    // MARK: Outside the window

    /// Holds the items Graph has in `range` outside `window` (a query reaching there), read with calendarView.
    func hold(_ range: SyncWindow, outside window: SyncWindow) throws {
        guard let client else { return }
        var parts: [SyncWindow] = []
        if range.start < window.start {
            parts.append(SyncWindow(start: range.start, end: min(range.end, window.start)))
        }
        if range.end > window.end { parts.append(SyncWindow(start: max(range.start, window.end), end: range.end)) }
        var events: [MirrorEvent] = []
        for part in parts where part.end > part.start {
            try client.calendarView(
                calendarID: info.isDefault ? nil : info.id, start: part.startDate, end: part.endDate
            ) { page in
                for entry in GraphPage.entries(in: page, fields: ["id", "changeKey"]) ?? [] {
                    guard let id = entry.fields["id"] else { continue }
                    events.append(MirrorEvent(id: id, changeKey: entry.fields["changeKey"], raw: entry.raw))
                }
            }
        }
        guard !events.isEmpty else { return }
        try withWork { working in
            let current = snapshot
            var held: [String: DAVItem] = [:]
            for item in current.items { held[item.graphID] = item }
            var sources: [PullItemSource] = []
            var spansLearnt: [DAVItem] = []
            for source in DeltaEntryShape.group(events) {
                guard var item = held[source.graphID] else {
                    sources.append(source)
                    continue
                }
                // An item held already (PUT there): its occurrences there are learnt for later queries.
                let spans = source.events.compactMap(DAVSpan.of).filter { !item.spans.contains($0) }
                if !spans.isEmpty {
                    item.spans += spans
                    spansLearnt.append(item)
                }
            }
            guard !sources.isEmpty || !spansLearnt.isEmpty else { return }
            let seriesIDs = sources.filter(\.isSeries).map(\.graphID)
            let masters = seriesIDs.isEmpty ? [:] : try CalendarExporter(client: client).fetchMasters(seriesIDs)
            var taken = Set(current.items.map(\.name))
            var meta = try working.store.meta()
            var writes: [DAVItem] = []
            var diagnostics: [Diagnostic] = []
            for source in sources {
                let master = source.isSeries ? (masters[source.graphID] ?? nil) : nil
                if source.isSeries, master == nil { continue }
                let span = SyncWindow(start: min(range.start, window.start), end: max(range.end, window.end))
                var item = try render(
                    source, master: master, existing: nil, window: span, outside: true, diagnostics: &diagnostics)
                guard !taken.contains(item.name) else { continue }
                taken.insert(item.name)
                meta.sequence += 1
                item.sequence = meta.sequence
                writes.append(item)
            }
            try working.store.database.transaction {
                for item in writes + spansLearnt { try working.store.write(item) }
                try working.store.save(meta)
            }
            try publish(working)
        }
    }
}
