import Foundation
import ICalBridge

/// The first phase of a run: what an earlier import created, and what to do with each event.
extension ImportRun {
    /// The lookup of the events whose identity property holds `key`, relative to the service root, for a
    /// GET inside `$batch`: `$filter` on the identity property, the version and calendar properties expanded.
    /// It searches the whole mailbox: Graph documents this `$filter` on `/me/events` (and
    /// `/users/{id}/events`) only, where it covers every calendar; ``found(_:)`` keeps the events of the
    /// calendar the run imports into. `select` names the event properties read: with `--on-duplicate update`
    /// also those ``EventChange`` compares (the found event is the baseline of the update).
    func lookupURL(key: String, select: String? = nil) -> String {
        let select =
            select
            ?? (settings.onDuplicate == .update
                ? "id,subject,type,isOrganizer,attendees,isOnlineMeeting,body,start,end,originalStartTimeZone,"
                    + "originalEndTimeZone,isAllDay,showAs,sensitivity,importance,categories,location,isReminderOn,"
                    + "reminderMinutesBeforeStart,recurrence,organizer,iCalUId"
                : "id,subject,type,isOrganizer,attendees,isOnlineMeeting")
        let filter =
            "singleValueExtendedProperties/Any(ep: ep/id eq \(GraphQuery.literal(ImportIdentity.propertyID))"
            + " and ep/value eq \(GraphQuery.literal(key)))"
        let query: [(name: String, value: String)] = [
            ("$filter", filter),
            (
                "$expand",
                "singleValueExtendedProperties($filter=id eq \(GraphQuery.literal(ImportIdentity.versionPropertyID))"
                    + " or id eq \(GraphQuery.literal(ImportIdentity.calendarPropertyID)))"
            ),
            ("$select", select),
            ("$top", "10"),
        ]
        return client.eventsPath(calendarID: nil) + "?" + GraphQuery.queryString(query)
    }

    /// The events of a lookup answer that are in the run's calendar; nil when the answer is not a list.
    func found(_ answer: BatchResponse) -> [ExistingEvent]? {
        guard answer.succeeded, let found = ExistingEvent.list(from: answer.body) else { return nil }
        return found.events.filter { $0.isIn(calendarID: settings.calendarID) }
    }

    /// Looks up every event that needs it (cancellations always; creates unless `--on-duplicate new`) in
    /// batched GETs, and decides what to do with each.
    func lookUp() throws {
        var firstByKey: [String: Int] = [:]
        var lookups: [BatchRequest] = []
        var lookedUp: [Int] = []
        for index in items.indices where results[index] == nil {
            let cancelling = EventImporter.isCancellation(items[index].event)
            if cancelling || settings.onDuplicate != .new {
                let seenKey = (cancelling ? "cancel\n" : "create\n") + keys[index]
                if firstByKey[seenKey] != nil {
                    finish(index, .skipped, note: "the same event as earlier in the input")
                    continue
                }
                firstByKey[seenKey] = index
            }
            if !cancelling && settings.onDuplicate == .new {
                creates.append(index)
                continue
            }
            lookups.append(
                BatchRequest(id: "\(lookups.count)", method: "GET", url: lookupURL(key: keys[index])))
            lookedUp.append(index)
        }
        let answers = try client.batch(lookups)
        for (index, answer) in zip(lookedUp, answers) {
            guard let found = found(answer) else {
                finish(index, .failed, error: Self.reason(answer, "looking up the event"))
                continue
            }
            decide(index, found: found)
        }
    }

    /// What to do with an event, given the events of its calendar an earlier import created from it.
    func decide(_ index: Int, found: [ExistingEvent]) {
        let event = events[index]
        if EventImporter.isCancellation(event) {
            if found.isEmpty, event.recurrenceID != nil {
                occurrenceCancels.append(index)
            } else {
                cancels.append((index, found))
            }
            return
        }
        guard let first = found.first else {
            creates.append(index)
            return
        }
        switch settings.onDuplicate {
        case .skip, .new:
            let newer =
                first.version != nil
                && ImportIdentity.isNewer(sequence: event.sequence, timestamp: event.timestamp, than: first.version)
            skip(
                index, existing: first,
                note: newer
                    ? "a newer version than the imported one; --on-duplicate update applies it" : "already imported")
        case .update:
            let stored = first.version
            guard ImportIdentity.isNewer(sequence: event.sequence, timestamp: event.timestamp, than: stored) else {
                let version = stored.map { " (stored SEQUENCE;DTSTAMP \($0))" } ?? ""
                skip(index, existing: first, note: "already imported; the file is not newer\(version)")
                return
            }
            let options = ImportOptions(userZone: displayZone, file: items[index].file)
            let targets = found.compactMap { target -> (event: ExistingEvent, change: EventChange?)? in
                // Graph's event unread or unreadable: the whole payload, as an update without a baseline sends.
                guard let json = target.json else { return (target, nil) }
                let compared: EventChange?
                do {
                    compared = try EventChange.between(graphJSON: json, event, options: options)
                } catch {
                    return (target, nil)
                }
                let sendable = OnlineMeetingBody.sendable(compared, toOnlineMeeting: target.isOnlineMeeting)
                if sendable.leftOut { keptBodies.insert(index) }
                guard let change = sendable.change else { return nil }
                return (target, change)
            }
            if targets.isEmpty {
                unchanged(index, found: found)
                return
            }
            if !settings.notifiesAttendees,
                let meeting = targets.first(where: { target in
                    target.event.mails(
                        target.change.map { .patch($0.fields.union(["singleValueExtendedProperties"])) } ?? .update)
                })?.event
            {
                finish(
                    index, .failed, eventID: meeting.id,
                    error: MailingRule.refusal(
                        "the event imported before", attendees: meeting.attendees, doing: "updating it"))
                return
            }
            updates.append((index, targets))
        }
    }

    /// A newer file that changes nothing Graph holds: nothing is sent. A series' occurrences (its overrides and
    /// EXDATEs) are applied again, as an update applies them.
    private func unchanged(_ index: Int, found: [ExistingEvent]) {
        let event = events[index]
        guard !event.followUps.isEmpty, event.payload.recurrence != nil,
            let master = found.first(where: { $0.type == "seriesMaster" })
        else {
            finish(
                index, .skipped, eventID: found.first?.id,
                note: "unchanged: the file is newer, but changes nothing Graph holds")
            return
        }
        if !settings.notifiesAttendees, master.mails(.update) {
            finish(
                index, .failed, eventID: master.id,
                error: MailingRule.refusal(
                    "the series imported before", attendees: master.attendees, doing: "updating its occurrences"))
            return
        }
        provisional[index] = result(
            index, .updated, eventID: master.id, note: "the series unchanged; its occurrences applied again")
        series.append(
            SeriesTask(
                index: index, seriesID: master.id, steps: event.followUps, mode: .updated, attendees: master.attendees))
    }

    /// Skips an event already imported; a series among them gets its follow-ups re-applied.
    private func skip(_ index: Int, existing: ExistingEvent, note: String) {
        let done = result(index, .skipped, eventID: existing.id, note: note)
        let steps = events[index].followUps
        guard !steps.isEmpty, existing.type == "seriesMaster",
            existing.attendees == 0 || settings.notifiesAttendees
        else {
            finish(done, at: index)
            return
        }
        provisional[index] = done
        series.append(
            SeriesTask(index: index, seriesID: existing.id, steps: steps, mode: .resumed, attendees: existing.attendees)
        )
    }

    /// Cancellations of one occurrence not imported on its own: look for the series by its UID.
    func lookUpSeriesOfOccurrences() throws {
        guard !occurrenceCancels.isEmpty else { return }
        let requests = occurrenceCancels.enumerated().map { position, index in
            BatchRequest(
                id: "\(position)", method: "GET",
                url: lookupURL(key: ImportIdentity.key(uid: events[index].sourceUID, recurrenceID: nil)))
        }
        let answers = try client.batch(requests)
        for (index, answer) in zip(occurrenceCancels, answers) {
            guard let found = found(answer) else {
                finish(index, .failed, error: Self.reason(answer, "looking up the series of the occurrence"))
                continue
            }
            let event = events[index]
            guard let master = found.first(where: { $0.type == "seriesMaster" }),
                let recurrenceID = event.recurrenceID,
                let start = FollowUpTime.originalStart(
                    recurrenceID: recurrenceID, zoneName: event.payload.start?.timeZone)
            else {
                finish(index, .skipped, note: "nothing to cancel: not in the calendar")
                continue
            }
            if !settings.notifiesAttendees, master.mails(.update) {
                finish(
                    index, .failed, eventID: master.id,
                    error: MailingRule.refusal(
                        "the series", attendees: master.attendees, doing: "cancelling an occurrence"))
                continue
            }
            series.append(
                SeriesTask(
                    index: index, seriesID: master.id, steps: [.cancelOccurrence(originalStart: start)],
                    mode: .cancellingOccurrence, attendees: master.attendees))
        }
    }
}
