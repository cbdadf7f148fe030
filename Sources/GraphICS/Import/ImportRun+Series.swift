import Foundation
import ICalBridge

/// The last phase of a run: the EXDATEs and overrides of the series, applied to their occurrences.
extension ImportRun {
    /// A delete or change of one occurrence, for the series at `position` of ``series``.
    private struct OccurrenceWrite {
        var position: Int
        var deletes: Bool
        /// What it does, for the failure (`deleting the occurrence of 2027-01-19T18:00:00Z`).
        var what: String
        var request: BatchRequest
        /// For a change: the follow-up it applies, and the occurrence it changes.
        var patch: (originalStart: String, changes: GraphEvent, occurrenceID: String)? = nil
    }

    /// An override Graph refused to apply because it moves its occurrence onto or past a neighbour's day.
    private struct Move {
        var position: Int
        var originalStart: String
        var changes: GraphEvent
        var occurrenceID: String
    }

    /// Reads the occurrences of every series with follow-ups (batched), then deletes and patches them.
    func finishSeries() throws {
        guard !series.isEmpty else { return }
        var failures: [Int: String] = [:]
        let occurrences = try readOccurrences(failures: &failures)
        let moved = try movedEvents(occurrences)
        let writes = occurrenceWrites(occurrences, moved: moved, failures: &failures)
        let answers = try client.batch(writes.map(\.request))
        var applied: [Int: (deleted: Int, changed: Int)] = [:]
        var moves: [Move] = []
        for (write, answer) in zip(writes, answers) {
            // An occurrence already gone (a re-run after a lost answer) is what was asked for.
            if answer.succeeded || (answer.status == 404 && write.deletes) {
                var counts = applied[write.position] ?? (0, 0)
                if write.deletes { counts.deleted += 1 } else { counts.changed += 1 }
                applied[write.position] = counts
            } else if let patch = write.patch, answer.status == 400,
                answer.error(operation: write.what)?.code == "ErrorOccurrenceCrossingBoundary"
            {
                moves.append(
                    Move(
                        position: write.position, originalStart: patch.originalStart, changes: patch.changes,
                        occurrenceID: patch.occurrenceID))
            } else {
                failures[write.position] = failures[write.position] ?? Self.reason(answer, write.what)
            }
        }
        var separated: [Int: [ImportResult.MovedOccurrence]] = [:]
        try moveAcrossNeighbours(moves, applied: &applied, failures: &failures, separated: &separated)
        for position in series.indices {
            reportSeries(
                at: position, failure: failures[position], applied: applied[position] ?? (0, 0),
                separated: separated[position] ?? [])
        }
    }

    /// Keeps the user's intent for overrides Graph refused to apply (`ErrorOccurrenceCrossingBoundary`: an
    /// occurrence cannot be moved to or before the day of the previous one, nor to or after the day of the
    /// following one, `api/event-update.md`): creates the moved occurrence as a single event carrying the
    /// series' source UID and the occurrence's RECURRENCE-ID, then cancels the occurrence in the series.
    private func moveAcrossNeighbours(
        _ moves: [Move], applied: inout [Int: (deleted: Int, changed: Int)], failures: inout [Int: String],
        separated: inout [Int: [ImportResult.MovedOccurrence]]
    ) throws {
        guard !moves.isEmpty else { return }
        var creates: [BatchRequest] = []
        var planned: [Move] = []
        for move in moves {
            let event = events[series[move.position].index].movedOccurrence(
                originalStart: move.originalStart, changes: move.changes, seriesID: series[move.position].seriesID)
            do {
                creates.append(
                    BatchRequest(
                        id: "\(creates.count)", method: "POST", url: client.eventsPath(calendarID: settings.calendarID),
                        body: try event.payload.jsonPayload()))
                planned.append(move)
            } catch {
                failures[move.position] = failures[move.position] ?? error.description
            }
        }
        var cancels: [BatchRequest] = []
        var cancelled: [(move: Move, id: String)] = []
        for (move, answer) in zip(planned, try client.batch(creates)) {
            let what = "creating the occurrence of \(move.originalStart) as an event of its own"
            guard answer.succeeded,
                let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
                let id = object["id"] as? String
            else {
                failures[move.position] = failures[move.position] ?? Self.reason(answer, what)
                continue
            }
            let task = series[move.position]
            let url = client.eventPath(id: move.occurrenceID)
            cancels.append(
                settings.notifiesAttendees && task.attendees > 0
                    ? BatchRequest(id: "\(cancels.count)", method: "POST", url: url + "/cancel", body: Data("{}".utf8))
                    : BatchRequest(id: "\(cancels.count)", method: "DELETE", url: url))
            cancelled.append((move, id))
        }
        for ((move, id), answer) in zip(cancelled, try client.batch(cancels)) {
            guard answer.succeeded || answer.status == 404 else {
                failures[move.position] =
                    failures[move.position]
                    ?? Self.reason(answer, "cancelling the occurrence of \(move.originalStart) in its series")
                continue
            }
            applied[move.position, default: (0, 0)].changed += 1
            separated[move.position, default: []].append(
                ImportResult.MovedOccurrence(originalStart: move.originalStart, eventID: id))
        }
    }

    /// The events an earlier import or push made of overrides Graph refused in their series (moved past a
    /// neighbour's day, ``moveAcrossNeighbours(_:applied:failures:separated:)``), for the series changed now
    /// (``SeriesTask/Mode/updated``: sync's push of a changed file, `import --on-duplicate update`) whose
    /// overrides name an occurrence no longer in the series: by position, then original start. Each is found
    /// by its link to the series, the transactionId naming the series and the original start, among the
    /// events the caller knows (``SeriesTask/movedEventIDs``, read by id), whatever UID the file has; else by
    /// its identity key (the file's UID and the RECURRENCE-ID). In batched GETs.
    private func movedEvents(_ found: [[Occurrence]?]) throws -> [Int: [String: ExistingEvent]] {
        var wanted: [(position: Int, originalStart: String, key: String)] = []
        for (position, occurrences) in found.enumerated() {
            guard let occurrences, series[position].mode == .updated else { continue }
            for moved in events[series[position].index].movedOccurrenceKeys
            where FollowUpTime.match(moved.originalStart, in: occurrences) == nil {
                wanted.append((position, moved.originalStart, moved.key))
            }
        }
        guard !wanted.isEmpty else { return [:] }
        var requests = wanted.enumerated().map { number, moved in
            BatchRequest(id: "\(number)", method: "GET", url: lookupURL(key: moved.key))
        }
        var linked: [(position: Int, request: Int)] = []
        for position in Set(wanted.map(\.position)).sorted() {
            for id in series[position].movedEventIDs {
                linked.append((position, requests.count))
                requests.append(
                    BatchRequest(
                        id: "\(requests.count)", method: "GET",
                        url: client.eventPath(id: id) + "?"
                            + GraphQuery.queryString([
                                ("$select", "id,subject,type,isOrganizer,attendees,isOnlineMeeting,transactionId")
                            ])))
            }
        }
        let answers = try client.batch(requests)
        // The linked events, by position and the instant of the original start their transactionId names.
        var byLink: [Int: [Int64: ExistingEvent]] = [:]
        for (position, request) in linked where answers.indices.contains(request) {
            let answer = answers[request]
            guard answer.succeeded, let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
                let event = ExistingEvent(object: object),
                let link = ImportIdentity.movedOccurrence(
                    transactionID: object["transactionId"] as? String, type: event.type),
                link.seriesID == series[position].seriesID
            else { continue }
            byLink[position, default: [:]][link.originalStart] = event
        }
        var result: [Int: [String: ExistingEvent]] = [:]
        for (moved, answer) in zip(wanted, answers) {
            let event =
                FollowUpTime.instant(moved.originalStart).flatMap { byLink[moved.position]?[$0] }
                ?? self.found(answer)?.first
            if let event { result[moved.position, default: [:]][moved.originalStart] = event }
        }
        return result
    }

    /// The occurrences of a series between `start` and `end`, relative to the service root.
    func instancesURL(seriesID: String, start: Date, end: Date) -> String {
        let query: [(name: String, value: String)] = [
            ("startDateTime", GraphClient.iso8601(start)),
            ("endDateTime", GraphClient.iso8601(end)),
            ("$select", "id,type,originalStart,start,end,isAllDay,isOnlineMeeting"),
            ("$top", "1000"),
        ]
        return client.eventPath(id: seriesID) + "/instances?" + GraphQuery.queryString(query)
    }

    /// The occurrences of each series of ``series`` around its follow-ups (every page), by position; nil, with
    /// the failure in `failures`, for a series whose occurrences could not be read. A span longer than Graph
    /// answers is asked for in windows (``GraphClient/longestRange``), one batch request each.
    private func readOccurrences(failures: inout [Int: String]) throws -> [[Occurrence]?] {
        var requests: [BatchRequest] = []
        var owners: [Int] = []
        for (position, task) in series.enumerated() {
            let instants = task.steps.compactMap { step -> Int64? in
                switch step {
                case .cancelOccurrence(let start), .patchOccurrence(let start, _): FollowUpTime.instant(start)
                }
            }
            // Two days on either side: an all-day date is midnight in any zone, and a changed occurrence may
            // have moved a little.
            let start = Date(timeIntervalSince1970: TimeInterval((instants.min() ?? 0) - 2 * 86_400))
            let end = Date(timeIntervalSince1970: TimeInterval((instants.max() ?? 0) + 2 * 86_400))
            for window in GraphClient.windows(start: start, end: end, length: GraphClient.longestRange) {
                requests.append(
                    BatchRequest(
                        id: "\(requests.count)", method: "GET",
                        url: instancesURL(seriesID: task.seriesID, start: window.start, end: window.end)))
                owners.append(position)
            }
        }
        let answers = try client.batch(requests)
        var found: [[Occurrence]?] = Array(repeating: [], count: series.count)
        for (position, answer) in zip(owners, answers) where found[position] != nil {
            guard answer.succeeded, var page = Occurrence.list(from: answer.body) else {
                failures[position] = Self.reason(
                    answer, "reading the occurrences of series \(series[position].seriesID)")
                found[position] = nil
                continue
            }
            var occurrences = page.occurrences
            while let link = page.nextLink {
                let url = try client.followable(link, operation: "reading the occurrences of a series")
                let response = try client.perform(
                    HTTPRequest(method: "GET", url: url), operation: "reading the occurrences of a series")
                guard let next = Occurrence.list(from: response.body) else { break }
                occurrences += next.occurrences
                page = next
            }
            // An occurrence across a window boundary comes in both windows.
            let known = Set(found[position]?.map(\.id) ?? [])
            found[position]? += occurrences.filter { !known.contains($0.id) }
        }
        return found
    }

    /// The deletes and changes the follow-ups of each series ask for, among its `found` occurrences.
    private func occurrenceWrites(
        _ found: [[Occurrence]?], moved: [Int: [String: ExistingEvent]], failures: inout [Int: String]
    ) -> [OccurrenceWrite] {
        var writes: [OccurrenceWrite] = []
        for (position, occurrences) in found.enumerated() {
            guard let occurrences else { continue }
            let task = series[position]
            for step in task.steps {
                let id = "\(writes.count)"
                switch step {
                case .cancelOccurrence(let start):
                    guard let occurrence = FollowUpTime.match(start, in: occurrences) else { continue }
                    let notify = settings.notifiesAttendees && task.attendees > 0
                    let request =
                        notify
                        ? BatchRequest(
                            id: id, method: "POST", url: client.eventPath(id: occurrence.id) + "/cancel",
                            body: Data("{}".utf8))
                        : BatchRequest(id: id, method: "DELETE", url: client.eventPath(id: occurrence.id))
                    writes.append(
                        OccurrenceWrite(
                            position: position, deletes: true, what: "deleting the occurrence of \(start)",
                            request: request))
                case .patchOccurrence(let start, let changes):
                    if task.mode == .cancellingOccurrence { continue }
                    guard let occurrence = FollowUpTime.match(start, in: occurrences) else {
                        if let event = moved[position]?[start] {
                            // Cancelled in the series, held as an event of its own: the change goes there.
                            let sendable = OnlineMeetingBody.sendable(
                                changes, toOnlineMeeting: event.isOnlineMeeting, comparedWith: event.graphEvent)
                            if sendable.leftOut { keptBodies.insert(task.index) }
                            do {
                                writes.append(
                                    OccurrenceWrite(
                                        position: position, deletes: false,
                                        what: "changing the occurrence of \(start), an event of its own",
                                        request: BatchRequest(
                                            id: id, method: "PATCH", url: client.eventPath(id: event.id),
                                            body: try sendable.payload.jsonPayload())))
                            } catch {
                                failures[position] = failures[position] ?? error.description
                            }
                            continue
                        }
                        if task.mode == .created {
                            failures[position] =
                                failures[position] ?? "the occurrence of \(start) is not in the created series"
                        }
                        continue
                    }
                    // Already changed (an earlier run got this far) unless the series itself was changed now.
                    if occurrence.type == "exception", task.mode == .resumed { continue }
                    // The occurrence of an online meeting keeps Graph's body (``OnlineMeetingBody``). Its body is not
                    // read: the override's DESCRIPTION counts as changed when it is not the series' in the file
                    // (the series' own is the master's change).
                    let sendable = OnlineMeetingBody.sendable(
                        changes, toOnlineMeeting: occurrence.isOnlineMeeting, comparedWith: events[task.index].payload)
                    if sendable.leftOut { keptBodies.insert(task.index) }
                    let changes = sendable.payload
                    do {
                        let request = BatchRequest(
                            id: id, method: "PATCH", url: client.eventPath(id: occurrence.id),
                            body: try changes.jsonPayload())
                        writes.append(
                            OccurrenceWrite(
                                position: position, deletes: false, what: "changing the occurrence of \(start)",
                                request: request, patch: (start, changes, occurrence.id)))
                    } catch {
                        failures[position] = failures[position] ?? error.description
                    }
                }
            }
        }
        return writes
    }

    /// The final result of the event of the series at `position` of ``series``, once its follow-ups are sent.
    private func reportSeries(
        at position: Int, failure: String?, applied counts: (deleted: Int, changed: Int),
        separated: [ImportResult.MovedOccurrence]
    ) {
        let task = series[position]
        if task.mode == .cancellingOccurrence {
            if let failure {
                finish(task.index, .failed, eventID: task.seriesID, error: failure)
            } else if counts.deleted > 0 {
                finish(task.index, .cancelled, eventID: task.seriesID, note: "one occurrence of the series")
            } else {
                finish(task.index, .skipped, eventID: task.seriesID, note: "nothing to cancel: no such occurrence")
            }
            return
        }
        var done = provisional[task.index] ?? result(task.index, .failed)
        if let failure {
            let what = done.action == .skipped ? "already imported" : done.action.rawValue
            done.action = .failed
            done.error = "\(what) as \(task.seriesID), but its series was not finished: \(failure)"
        } else if task.mode == .resumed, counts.deleted + counts.changed > 0 {
            done.note =
                (done.note.map { $0 + "; " } ?? "")
                + "finished its series: \(counts.deleted) occurrence(s) deleted, \(counts.changed) changed"
        }
        if failure == nil, !separated.isEmpty {
            done.note = ([done.note].compactMap { $0 } + separated.map(\.description)).joined(separator: "; ")
            done.movedOccurrences = separated
        }
        finish(done, at: task.index)
    }
}
