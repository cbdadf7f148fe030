import Foundation
import GraphICS
import GraphICSMirror
import ICalBridge

extension SyncPush {
    /// Sends the actions of `plan`, one at a time, each recorded in its own transaction once Graph confirmed
    /// it. The items in `skipping` (unresolved conflicts) are left out; for the items in `overriding` (the
    /// local version won a conflict) Graph's change key is not compared and `If-Match` names Graph's current
    /// etag. Running it again after a kill, from a new plan, sends nothing twice.
    ///
    /// - Throws: what stopped the run: Graph refusing the sign-in or unavailable (`GraphError`,
    ///   `AuthError`), the state or the folder failing. Everything applied before it is recorded.
    public func apply(_ plan: PushPlan, skipping: Set<String> = [], overriding: Set<String> = []) throws
        -> PushReport
    {
        var report = PushReport(items: plan.problems, diagnostics: plan.diagnostics)
        var owners = Dictionary(
            try state.items(of: pairing).compactMap { record in record.graphID.map { ($0, record.fileName) } }
        ) { first, _ in first }
        let linked = MovedOccurrenceIndex(mirror: mirror)
        for action in plan.actions where !skipping.contains(action.fileName) {
            guard
                let item = try apply(
                    action, overriding: overriding.contains(action.fileName), owners: &owners, linked: linked)
            else { continue }
            report.items.append(item)
        }
        return report
    }

    /// What ``apply(_:skipping:overriding:)`` would report for `action`, decided by the same checks
    /// (``createRefusal(_:)``, ``updateStep(_:overriding:)``, ``deleteStep(_:overriding:)``) from the folder and
    /// Graph's event, read only: a `--dry-run` says `held`, `refused` or `conflict` where the run would.
    /// Nil where the run reports nothing (a record without a Graph event whose file is gone). A create is
    /// not looked up in Graph (an event a killed run made is adopted by the run): `pushed new`.
    ///
    /// - Throws: what would stop the run (Graph refusing the sign-in or unavailable).
    public func preview(_ action: PushAction, overriding: Bool = false) throws -> PushedItem? {
        var item = problem(action, .pushed(.new))
        do {
            switch action.kind {
            case .create:
                guard let event = action.event else {
                    item.outcome = .failed(reason: "the file was not read", requestID: nil)
                    break
                }
                if let refusal = Self.createRefusal(event) { item.outcome = .refused(reason: refusal) }
            case .update:
                switch try updateStep(action, overriding: overriding) {
                case .outcome(let outcome): item.outcome = outcome
                case .recreate: item.outcome = .pushed(.new)
                case .send(let send): item.outcome = send.outcome
                }
            case .delete:
                guard action.graphID != nil else { return nil }
                switch try deleteStep(action, overriding: overriding) {
                case .gone: item.outcome = .pushed(.deleted)
                case .send(let graph, _):
                    item.outcome = .pushed(.deleted)
                    item.subject = item.subject ?? graph.subject
                case .outcome(let outcome, let subject):
                    item.outcome = outcome
                    item.subject = item.subject ?? subject
                }
            }
        } catch {
            item.outcome = try Self.itemOutcome(error)
        }
        return item
    }

    /// Applies one action; nil for a record without a Graph event whose file is gone (forgotten, nothing to
    /// report). `owners` are the recorded Graph ids and their files; `linked`, the events of their own that hold
    /// occurrences of series moved past a neighbour's day, as the mirror has them.
    private func apply(
        _ action: PushAction, overriding: Bool, owners: inout [String: String], linked: MovedOccurrenceIndex
    ) throws -> PushedItem? {
        var item = problem(action, .pushed(.new))
        var moved: [ImportResult.MovedOccurrence] = []
        do {
            switch action.kind {
            case .create:
                (item.outcome, item.graphID) = try create(action, owners: &owners, linked: linked, moved: &moved)
            case .update:
                item.outcome = try update(
                    action, overriding: overriding, owners: &owners, linked: linked, moved: &moved)
                if item.outcome == .pushed(.new) {
                    // Made again (deleted in Outlook, the local version won): its new id.
                    item.graphID = owners.first { $0.value == action.fileName }?.key
                }
            case .delete:
                guard action.graphID != nil else {
                    try forget(action)
                    return nil
                }
                let (outcome, subject) = try delete(action, overriding: overriding)
                item.outcome = outcome
                item.subject = item.subject ?? subject
            }
        } catch {
            item.outcome = try Self.itemOutcome(error)
        }
        if case .pushed = item.outcome { item.note = PushedItem.note(moved) }
        if case .held = item.outcome {
            // Remembered with the file's hash (none for a deletion): reported once per local change.
            try state.setHeld(
                action.kind == .delete ? Data() : action.file?.sha256, fileName: action.fileName, in: pairing)
        }
        return item
    }

    /// The outcome of an item whose action threw `error`; rethrows an error that stops the whole run.
    static func itemOutcome(_ error: any Error) throws -> PushedItem.Outcome {
        switch error {
        case let conflict as EditConflict:
            return .conflict(
                reason: "changed in Outlook while the push was sending it (If-Match answered 412"
                    + (conflict.error.requestID.map { ", request-id \($0)" } ?? "") + ")")
        case let error as GraphError where error.kind == .unauthorized || error.kind == .unavailable:
            throw error
        case let error as GraphError:
            return .failed(reason: error.description, requestID: error.requestID)
        case let error as ICalBridgeError:
            return .failed(reason: error.description, requestID: nil)
        default:
            throw error
        }
    }

    // MARK: Recording

    /// Records the item of `action` as Graph now has it: its Graph id and change key, the file's stat and
    /// hash as planned, the series' occurrences with their change keys (so that the next round, which reports
    /// the occurrences this push changed, finds them unchanged); a renamed item's old record goes in the same
    /// transaction. An item Graph confirmed outside the window stays marked so.
    func record(_ action: PushAction, graphID: String, changeKey: String?, occurrences: [String: String]) throws {
        guard let file = action.file, let uid = action.uid else { return }
        try beforeRecording?(action)
        try state.transaction {
            if let old = action.renamedFrom {
                try state.deleteItem(fileName: old, in: pairing)
                try state.clearOccurrences(of: old, in: pairing)
            }
            try state.upsert(
                SyncItemRecord(
                    fileName: action.fileName, uid: uid, graphID: graphID, changeKey: changeKey,
                    size: file.entry.size, modificationNanoseconds: file.entry.modificationNanoseconds,
                    sha256: file.sha256, outsideWindow: action.record?.outsideWindow ?? false),
                in: pairing)
            try state.setOccurrences(
                Array(occurrences.keys), changeKeys: occurrences, of: action.fileName, in: pairing)
        }
    }

    /// Forgets the item of a deletion (its record and occurrences).
    func forget(_ action: PushAction) throws {
        try beforeRecording?(action)
        try state.transaction {
            try state.deleteItem(fileName: action.fileName, in: pairing)
            try state.clearOccurrences(of: action.fileName, in: pairing)
        }
    }

    /// The occurrences and exceptions of the series `id` in the window of the last pull, and the events of
    /// their own in `moved` that hold occurrences of it moved past a neighbour's day (which the pull writes in
    /// the series' file), by id with their change keys (what the pull records, so that a removed occurrence
    /// finds its file and an unchanged one is known, and the round after a push does not take the push's own
    /// writes for Outlook's); none for a single event, or before any pull.
    func occurrences(ofSeries id: String, isSeries: Bool, moved: [String] = []) throws -> [String: String] {
        guard isSeries, let window = try state.deltaCheckpoint(of: pairing)?.window else { return [:] }
        var keys: [String: String] = [:]
        try client.instances(seriesMasterID: id, start: window.startDate, end: window.endDate) { page in
            let object = (try? JSONSerialization.jsonObject(with: page)) as? [String: Any]
            for entry in object?["value"] as? [[String: Any]] ?? [] {
                guard let occurrence = entry["id"] as? String else { continue }
                keys[occurrence] = entry["changeKey"] as? String ?? ""
            }
        }
        let ids = Array(Set(moved)).sorted()
        let answers = try client.batch(
            ids.enumerated().map { number, event in
                BatchRequest(
                    id: "\(number)", method: "GET",
                    url: client.eventPath(id: event) + "?$select=id,changeKey")
            })
        for (event, answer) in zip(ids, answers) where answer.succeeded {
            let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
            keys[event] = object?["changeKey"] as? String ?? ""
        }
        return keys
    }

    /// The mirror of the pairing's calendar (``MovedOccurrenceIndex``'s source).
    var mirror: CalendarMirror {
        state.mirror(of: settings.calendarID.map { .other(id: $0) } ?? .primary, for: pairing, client: client)
    }
}
