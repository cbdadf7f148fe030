import Foundation
import ICalBridge

/// The second phase of a run: creates, updates and cancellations.
extension ImportRun {
    private enum Write {
        case create
        case update(ExistingEvent)
        case cancel(ExistingEvent)
    }

    /// Creates and updates in one batched call (and the creates Graph refused, again), then the
    /// cancellations (which may target events created just now by an earlier part of the input).
    func write() throws {
        let changes = createsAndUpdates()
        try settle(changes.requests, changes.writes)
        try retryRefusedCreates()
        let cancellations = cancellations()
        try settle(cancellations.requests, cancellations.writes)
    }

    /// The POSTs of ``creates`` and the PATCHes of ``updates``, each with the write it is.
    private func createsAndUpdates() -> (requests: [BatchRequest], writes: [(index: Int, write: Write)]) {
        var requests: [BatchRequest] = []
        var writes: [(index: Int, write: Write)] = []
        for index in creates {
            do {
                var payload = events[index].payload
                if versionedCreates.contains(index) {
                    payload.transactionId = ImportIdentity.versionedTransactionID(for: events[index])
                }
                let body = try payload.jsonPayload()
                requests.append(
                    BatchRequest(
                        id: "\(requests.count)", method: "POST",
                        url: client.eventsPath(calendarID: settings.calendarID), body: body))
                writes.append((index, .create))
            } catch {
                finish(index, .failed, error: error.description)
            }
        }
        for (index, targets) in updates {
            do {
                let payload = events[index].updatePayload
                for (target, change) in targets {
                    // Only what changed, with graph-ics's own properties (the version the event now comes from);
                    // else the whole payload (Graph's event did not read as one), without the body for an online
                    // meeting, which keeps Outlook's (``OnlineMeetingBody``).
                    let body: Data
                    if let change {
                        body = try change.payload(adding: payload.singleValueExtendedProperties ?? [])
                    } else {
                        let sendable = OnlineMeetingBody.sendable(
                            payload, toOnlineMeeting: target.isOnlineMeeting, comparedWith: target.graphEvent)
                        if sendable.leftOut { keptBodies.insert(index) }
                        body = try sendable.payload.jsonPayload()
                    }
                    requests.append(
                        BatchRequest(
                            id: "\(requests.count)", method: "PATCH", url: client.eventPath(id: target.id), body: body))
                    writes.append((index, .update(target)))
                }
            } catch {
                finish(index, .failed, error: error.description)
            }
        }
        return (requests, writes)
    }

    /// The DELETEs (or, notifying attendees, the cancels) of ``cancels``, the events created earlier in this run
    /// from the same source included, each with the write it is.
    private func cancellations() -> (requests: [BatchRequest], writes: [(index: Int, write: Write)]) {
        var requests: [BatchRequest] = []
        var writes: [(index: Int, write: Write)] = []
        for (index, found) in cancels {
            var targets = found
            for created in createdByKey[keys[index]] ?? [] where created.index < index {
                targets.append(
                    ExistingEvent(
                        id: created.id, type: nil, isOrganizer: true, attendees: 0, version: nil, calendar: nil))
                // A series cancelled right after its creation needs no finishing.
                series.removeAll { $0.index == created.index }
                if let done = provisional[created.index] { finish(done, at: created.index) }
            }
            guard !targets.isEmpty else {
                finish(index, .skipped, note: "nothing to cancel: not in the calendar")
                continue
            }
            if let refusal = cancelRefusal(targets) {
                finish(index, .failed, eventID: refusal.id, error: refusal.error)
                continue
            }
            for target in targets {
                let notify = settings.notifiesAttendees && target.mails(.delete)
                requests.append(
                    notify
                        ? BatchRequest(
                            id: "\(requests.count)", method: "POST", url: client.eventPath(id: target.id) + "/cancel",
                            body: Data("{}".utf8))
                        : BatchRequest(id: "\(requests.count)", method: "DELETE", url: client.eventPath(id: target.id)))
                writes.append((index, .cancel(target)))
            }
        }
        return (requests, writes)
    }

    /// Why cancelling `targets` is refused: one is a meeting this user organizes, and deleting or cancelling
    /// it would notify its attendees without `--as-meeting`; nil when it may be cancelled.
    func cancelRefusal(_ targets: [ExistingEvent]) -> (id: String, error: String)? {
        guard !settings.notifiesAttendees,
            let meeting = targets.first(where: { $0.mails(.delete) })
        else { return nil }
        return (meeting.id, MailingRule.refusal("the event", attendees: meeting.attendees, doing: "cancelling it"))
    }

    /// Sends `requests` and turns their answers into results (or, for series, provisional results). A create
    /// that is final as soon as Graph answered it (no series to finish) is reported as each `$batch` comes
    /// back, so that an import interrupted meanwhile has told what it created.
    private func settle(_ requests: [BatchRequest], _ writes: [(index: Int, write: Write)]) throws {
        guard !requests.isEmpty else { return }
        let early = EarlyCreates(
            results: writes.map { index, write in
                guard case .create = write, events[index].followUps.isEmpty || events[index].payload.recurrence == nil
                else { return nil }
                return (index, result(index, .created))
            }, onResult: onResult)
        let answers = try client.batch(requests) { offset, answers in early.report(offset, answers) }
        reportedEarly.merge(early.reported) { _, new in new }
        // Per event: the id it got or was found with, and the first failure.
        var outcomes: [Int: (id: String?, failure: String?)] = [:]
        var changeKeys: [Int: String] = [:]
        var order: [Int] = []
        for ((index, write), answer) in zip(writes, answers) {
            if outcomes[index] == nil {
                order.append(index)
                outcomes[index] = (nil, nil)
            }
            var outcome = outcomes[index] ?? (nil, nil)
            switch write {
            case .create:
                if answer.succeeded,
                    let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
                    let id = object["id"] as? String
                {
                    outcome.id = id
                    changeKeys[index] = object["changeKey"] as? String
                    createdByKey[keys[index], default: []].append((index, id))
                } else if Self.isDuplicateTransaction(answer), !versionedCreates.contains(index) {
                    refusedCreates.append(index)
                    continue
                } else {
                    outcome.failure = outcome.failure ?? Self.reason(answer, "creating the event")
                }
            case .update(let target):
                if answer.succeeded {
                    outcome.id = outcome.id ?? target.id
                } else {
                    outcome.failure = outcome.failure ?? Self.reason(answer, "updating event \(target.id)")
                }
            case .cancel(let target):
                // Already gone (a re-run after a lost answer) is what was asked for.
                if answer.succeeded || answer.status == 404 {
                    outcome.id = outcome.id ?? target.id
                } else {
                    outcome.failure = outcome.failure ?? Self.reason(answer, "cancelling event \(target.id)")
                }
            }
            outcomes[index] = outcome
        }
        for index in order where !refusedCreates.contains(index) {
            guard let outcome = outcomes[index] else { continue }
            let kind = writes.first { $0.index == index }?.write
            if let failure = outcome.failure {
                finish(index, .failed, eventID: outcome.id, error: failure)
                continue
            }
            switch kind {
            case .create?:
                settleSeries(
                    index, action: .created, id: outcome.id, mode: .created, changeKey: changeKeys[index])
            case .update(let target)?:
                settleSeries(index, action: .updated, id: outcome.id, mode: .updated, attendees: target.attendees)
            case .cancel?, nil:
                finish(index, .cancelled, eventID: outcome.id)
            }
        }
    }

    /// Whether Graph refused a create because its transactionId was used before for another body
    /// (`ErrorDuplicateTransactionId`, alcionai/corso#2490): the event was imported from another version of
    /// the file (another DTSTAMP), and the lookup did not find it, most often because the user deleted it.
    static func isDuplicateTransaction(_ answer: BatchResponse) -> Bool {
        answer.status == 400 && answer.error(operation: "creating the event")?.code == "ErrorDuplicateTransactionId"
    }

    /// Looks the refused creates up again: one found after all is decided as the lookup decides it (skipped,
    /// or updated); one still missing is created with a transactionId that includes the file's version
    /// (``ImportIdentity/versionedTransactionID(for:)``), so a re-run of the same file does not create it twice.
    func retryRefusedCreates() throws {
        guard !refusedCreates.isEmpty else { return }
        let refused = refusedCreates
        let requests = refused.enumerated().map { position, index in
            BatchRequest(id: "\(position)", method: "GET", url: lookupURL(key: keys[index]))
        }
        let answers = try client.batch(requests)
        refusedCreates = []
        creates = []
        updates = []
        for (index, answer) in zip(refused, answers) {
            guard let found = found(answer) else {
                finish(index, .failed, error: Self.reason(answer, "looking up the event again"))
                continue
            }
            if found.isEmpty {
                versionedCreates.insert(index)
                creates.append(index)
            } else {
                decide(index, found: found)
            }
        }
        let changes = createsAndUpdates()
        try settle(changes.requests, changes.writes)
    }

    /// Finishes the event `index` at once, or, for a series with EXDATEs or overrides to apply, provisionally
    /// until ``finishSeries()`` has applied them; `changeKey` (Graph's answer to a create) goes into the result
    /// only when it is final: applying a series' steps moves it.
    private func settleSeries(
        _ index: Int, action: ImportResult.Action, id: String?, mode: SeriesTask.Mode, attendees: Int = 0,
        changeKey: String? = nil
    ) {
        var done = result(index, action, eventID: id)
        let steps = events[index].followUps
        guard let id, !steps.isEmpty, events[index].payload.recurrence != nil else {
            done.changeKey = changeKey
            finish(done, at: index)
            return
        }
        provisional[index] = done
        let sent = events[index].payload.attendees?.count ?? 0
        series.append(
            SeriesTask(index: index, seriesID: id, steps: steps, mode: mode, attendees: max(sent, attendees)))
    }
}

/// The creates of one batched write that are final as soon as Graph answers them, reported as each `$batch`
/// comes back instead of when the whole write is done: an import interrupted meanwhile has printed a line for
/// every event it created, and counts them.
///
/// `@unchecked Sendable`: ``report(_:_:)`` runs on the threads that send the batches, one at a time under
/// the lock, while the run's own thread waits for ``GraphClient/batch(_:onChunk:)`` to return; only then does
/// it read ``reported``.
final class EarlyCreates: @unchecked Sendable {
    /// By position in the batch's requests: the event's index and its result without the event's id, for the
    /// creates reported early; nil for every other request.
    private let results: [(index: Int, result: ImportResult)?]
    private let onResult: (ImportResult) -> Void
    private let lock = NSLock()
    private var done: [Int: ImportResult] = [:]

    init(results: [(index: Int, result: ImportResult)?], onResult: @escaping (ImportResult) -> Void) {
        self.results = results
        self.onResult = onResult
    }

    /// Reports the creates among the answers of the requests from `offset` on that Graph carried out.
    func report(_ offset: Int, _ answers: [BatchResponse]) {
        lock.lock()
        defer { lock.unlock() }
        for (position, answer) in zip(offset..., answers) {
            guard results.indices.contains(position), let (index, base) = results[position], answer.succeeded,
                let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
                let id = object["id"] as? String
            else { continue }
            var result = base
            result.eventID = id
            result.changeKey = object["changeKey"] as? String
            done[index] = result
            onResult(result)
        }
    }

    /// The results reported, by event index.
    var reported: [Int: ImportResult] {
        lock.lock()
        defer { lock.unlock() }
        return done
    }
}
