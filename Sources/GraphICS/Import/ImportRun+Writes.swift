import Foundation
import ICalBridge

/// The second phase of a run: creates, updates and cancellations.
extension ImportRun {
    private enum Write {
        case create
        case update(ExistingEvent)
        case cancel(ExistingEvent)
    }

    /// Creates and updates in one batched call, then the cancellations (which may target events created
    /// just now by an earlier part of the input).
    func write() throws {
        let changes = createsAndUpdates()
        try settle(changes.requests, changes.writes)
        let cancellations = cancellations()
        try settle(cancellations.requests, cancellations.writes)
    }

    /// The POSTs of ``creates`` and the PATCHes of ``updates``, each with the write it is.
    private func createsAndUpdates() -> (requests: [BatchRequest], writes: [(index: Int, write: Write)]) {
        var requests: [BatchRequest] = []
        var writes: [(index: Int, write: Write)] = []
        for index in creates {
            do {
                let body = try events[index].payload.jsonPayload()
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
                let body = try events[index].updatePayload.jsonPayload()
                for target in targets {
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
                targets.append(ExistingEvent(id: created.id, type: nil, isOrganizer: true, attendees: 0, version: nil))
                // A series cancelled right after its creation needs no finishing.
                series.removeAll { $0.index == created.index }
                if let done = provisional[created.index] { finish(done, at: created.index) }
            }
            guard !targets.isEmpty else {
                finish(index, .skipped, note: "nothing to cancel: not in the calendar")
                continue
            }
            if !settings.notifiesAttendees, let meeting = targets.first(where: { $0.attendees > 0 && $0.isOrganizer }) {
                finish(
                    index, .failed, eventID: meeting.id,
                    error: "the event is a meeting with \(meeting.attendees) attendee(s); cancelling it "
                        + meetingRefusal)
                continue
            }
            for target in targets {
                let notify = settings.notifiesAttendees && target.attendees > 0 && target.isOrganizer
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

    /// Sends `requests` and turns their answers into results (or, for series, provisional results).
    private func settle(_ requests: [BatchRequest], _ writes: [(index: Int, write: Write)]) throws {
        guard !requests.isEmpty else { return }
        let answers = try client.batch(requests)
        // Per event: the id it got or was found with, and the first failure.
        var outcomes: [Int: (id: String?, failure: String?)] = [:]
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
                    createdByKey[keys[index], default: []].append((index, id))
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
        for index in order {
            guard let outcome = outcomes[index] else { continue }
            let kind = writes.first { $0.index == index }?.write
            if let failure = outcome.failure {
                finish(index, .failed, eventID: outcome.id, error: failure)
                continue
            }
            switch kind {
            case .create?:
                settleSeries(index, action: .created, id: outcome.id, mode: .created)
            case .update(let target)?:
                settleSeries(index, action: .updated, id: outcome.id, mode: .updated, attendees: target.attendees)
            case .cancel?, nil:
                finish(index, .cancelled, eventID: outcome.id)
            }
        }
    }

    private func settleSeries(
        _ index: Int, action: ImportResult.Action, id: String?, mode: SeriesTask.Mode, attendees: Int = 0
    ) {
        let done = result(index, action, eventID: id)
        let steps = events[index].followUps
        guard let id, !steps.isEmpty, events[index].payload.recurrence != nil else {
            finish(done, at: index)
            return
        }
        provisional[index] = done
        let sent = events[index].payload.attendees?.count ?? 0
        series.append(
            SeriesTask(index: index, seriesID: id, steps: steps, mode: mode, attendees: max(sent, attendees)))
    }
}
