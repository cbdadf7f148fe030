import Foundation
import GraphICS
import GraphICSMirror
import ICalBridge

// The one rule for deleting a file: Outlook deleted the event. A round's silence only makes an item a
// candidate: an event a full round (or a calendarView comparison) no longer shows, an `@removed` of a changes
// round, a series with no occurrence left in the window. Each candidate is asked about with a GET of the event
// (a series: its master), twenty to a `$batch`; only 404 or 410 deletes the file. An event Graph still has
// left the window (moved, or aged past --past): its file stays, rewritten only when Graph's change key moved,
// and its record is marked so that rounds over the window do not ask about it again. A GET that fails keeps
// file and record, and the round's checkpoint is not stored, so the next run asks again.
extension SyncPull {
    /// What Graph answered about one candidate.
    enum Confirmation {
        /// 404 or 410: deleted in Outlook.
        case deleted
        /// The event (a series: its master) as Graph has it now.
        case present(Data)
        /// The GET failed; nothing is known.
        case unconfirmed(reason: String, requestID: String?)
    }

    /// Asks Graph about each of `candidates` (records the round no longer showed) and plans it: a confirmed
    /// deletion, an item kept outside the window (rendered again when its change key moved), or an item
    /// left as it is because the answer failed.
    func confirm(_ candidates: [SyncItemRecord], moved: MovedOccurrenceIndex, into plan: inout PullPlan) throws {
        // A placeholder (a file a full round found and no sync wrote) only loses its record: never its file.
        plan.deletions += candidates.filter(\.isPlaceholder)
        let asked = candidates.filter { $0.graphID != nil && !$0.isPlaceholder }
        guard !asked.isEmpty else { return }
        plan.confirmations += asked.count
        let answers = try confirmations(asked.compactMap(\.graphID))
        for (record, answer) in zip(asked, answers) {
            switch answer {
            case .deleted:
                plan.deletions.append(record)
            case .present(let json):
                try keep(record, graphVersion: json, moved: moved, into: &plan)
            case .unconfirmed(let reason, let requestID):
                plan.unconfirmed.append(
                    .init(fileName: record.fileName, uid: record.uid, reason: reason, requestID: requestID))
            }
        }
    }

    /// `GET events/{id}` for each id, in `$batch` requests of twenty, in the order of `ids`. A failure of the
    /// whole batch (Graph unavailable, a timeout) leaves every answer unconfirmed; a refused sign-in stops
    /// the run.
    func confirmations(_ ids: [String]) throws -> [Confirmation] {
        let requests = ids.enumerated().map { index, id in
            BatchRequest(id: String(index + 1), method: "GET", url: client.eventPath(id: id))
        }
        let answers: [BatchResponse]
        do {
            answers = try client.batch(requests)
        } catch let error as GraphError where error.kind != .unauthorized {
            return ids.map { _ in .unconfirmed(reason: error.description, requestID: error.requestID) }
        } catch let error as CurlError {
            return ids.map { _ in .unconfirmed(reason: error.description, requestID: nil) }
        }
        return zip(ids, answers).map { id, answer in
            switch answer.status {
            case 404, 410:
                return .deleted
            case 200..<300:
                return .present(answer.body)
            default:
                let error = answer.error(operation: "asking whether event \(id) was deleted")
                return .unconfirmed(
                    reason: error?.description ?? "Graph answered HTTP \(answer.status)", requestID: error?.requestID)
            }
        }
    }

    /// Plans an item Graph still has although the round no longer showed it: outside the window. Its file is
    /// rendered again (a single event from `json`, a series from its master and its instances over the
    /// pattern's own span) only when Graph's change key is not the recorded one; else the record is marked.
    func keep(
        _ record: SyncItemRecord, graphVersion json: Data, moved: MovedOccurrenceIndex, into plan: inout PullPlan
    ) throws {
        guard let id = record.graphID else { return }
        let fields = Self.fields(json)
        let changeKey = fields["changeKey"] as? String
        if !record.outsideWindow {
            plan.outsideWindow.append(.init(fileName: record.fileName, uid: record.uid))
        }
        let markOnly = { (plan: inout PullPlan) in
            if !record.outsideWindow { plan.leftWindow.append(record) }
        }
        guard changeKey == nil || changeKey != record.changeKey else { return markOnly(&plan) }
        let isSeries = fields["type"] as? String == "seriesMaster"
        let source = PullItemSource(
            graphID: id, isSeries: isSeries, events: isSeries ? [] : [json], changeKey: changeKey)
        let span = isSeries ? Self.seriesSpan(fields) ?? plan.window : plan.window
        switch try prepare(
            source, record: record, window: span, fetchOccurrences: true, masters: isSeries ? [id: json] : [:],
            moved: moved, diagnostics: &plan.diagnostics)
        {
        case .update(var update):
            update.outsideWindow = true
            plan.updates.append(update)
        case .gone:
            plan.deletions.append(record)
        case .leftWindow:
            // A series with no occurrence at all (every one cancelled): Graph still holds it, the file stays.
            markOnly(&plan)
        case .skipped:
            break
        }
    }

    /// The span a series outside the window is rendered over: its pattern's own, from the day before its
    /// start date to two days after its end date, and at most five years (a series with no end, or a count).
    /// The range's dates are read as the RRULE writer reads them (`GraphTimestamp`), at midnight UTC.
    static func seriesSpan(_ master: [String: Any]) -> SyncWindow? {
        let midnightUTC = { (text: String) in GraphTimestamp.parse(text).map { $0.civil.date.secondsSinceEpoch } }
        guard let recurrence = master["recurrence"] as? [String: Any],
            let range = recurrence["range"] as? [String: Any],
            let first = (range["startDate"] as? String).flatMap(midnightUTC)
        else { return nil }
        let day: Int64 = 86_400
        let cap = first + Int64(GraphClient.longestRange / TimeInterval(day)) * day
        var end = cap
        if range["type"] as? String == "endDate", let last = (range["endDate"] as? String).flatMap(midnightUTC) {
            end = min(cap, max(first, last) + 2 * day)
        }
        return SyncWindow(start: first - day, end: end)
    }
}
