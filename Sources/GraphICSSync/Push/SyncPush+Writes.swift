import Foundation
import GraphICS
import ICalBridge

extension SyncPush {
    /// The single-value extended property a push writes on every event it changes: the SHA-256 (hex) of
    /// the file it sent, so that a run killed between Graph's answer and the state's commit knows, when it
    /// finds the change key moved, that the change was its own and not one made in Outlook.
    public static let filePropertyID = "String {6a3d0f5e-2c41-4b8e-9d7a-3f1c5e8b2a90} Name graph-ics.sync-file"

    static func fileValue(_ sha256: Data) -> String {
        sha256.map { String(format: "%02x", $0) }.joined()
    }

    // MARK: Create

    /// Creates the event of a new file through the import (found again by its source UID when a killed run
    /// made it already) and records it; returns the outcome and the event's id. The overrides of a series that
    /// Graph refused to move past a neighbour's day, made events of their own, go to `moved`.
    func create(
        _ action: PushAction, owners: inout [String: String], linked: MovedOccurrenceIndex,
        moved: inout [ImportResult.MovedOccurrence]
    ) throws -> (PushedItem.Outcome, String?) {
        guard let event = action.event else { return (.failed(reason: "the file was not read", requestID: nil), nil) }
        if let refusal = Self.createRefusal(event) { return (.refused(reason: refusal), nil) }
        let item = ImportItem(file: path(action.fileName), event: event)
        let report = EventImporter(client: client).run([item])
        if let stop = report.stoppedBy { throw stop }
        guard let result = report.results.first, let id = result.eventID,
            result.action == .created || result.action == .skipped
        else {
            let reason = report.results.first?.error ?? "the import did not create the event"
            return (.failed(reason: reason, requestID: nil), report.results.first?.eventID)
        }
        var pulledCopy: String?
        if let owner = owners[id], owner != action.fileName, owner != action.renamedFrom {
            guard result.action == .skipped, try removePulledCopy(owner) else {
                return (.refused(reason: "Graph's event \(id) with this UID is synced as \(owner) already"), id)
            }
            pulledCopy = owner
        }
        if result.action == .skipped {
            // Made before (by a run killed before recording it, or by an import of the same UID): the file may
            // have changed since, so the event is brought to it as an update would, meetings held.
            var adopted = action
            adopted.renamedFrom = pulledCopy ?? action.renamedFrom
            adopted.graphID = id
            adopted.record = SyncItemRecord(
                fileName: action.fileName, uid: event.sourceUID, graphID: id, changeKey: nil, size: 0,
                modificationNanoseconds: 0, sha256: Data())
            let outcome = try update(adopted, overriding: true, owners: &owners, linked: linked, moved: &moved)
            let taken = outcome == .pushed(.changed) || outcome == .recorded
            if taken { owners[id] = action.fileName }
            return (taken ? .pushed(.new) : outcome, id)
        }
        // Graph's answer to the create holds the change key; a series whose EXDATEs and overrides were applied
        // since has a new one, read again.
        let changeKey =
            try result.changeKey
            ?? GraphItemState(client.event(id: id), operation: "reading event \(id)").changeKey
        let occurrences = try occurrences(
            ofSeries: id, isSeries: event.payload.recurrence != nil, moved: result.movedOccurrences.map(\.eventID))
        try record(action, graphID: id, changeKey: changeKey, occurrences: occurrences)
        owners[id] = action.fileName
        moved += result.movedOccurrences
        return (.pushed(.new), id)
    }

    /// Why a new file's event is not created, decided the same way for the plan (`--dry-run`) and the run:
    /// a cancelled event (STATUS:CANCELLED or METHOD:CANCEL) has nothing to create. Nil when it is created.
    static func createRefusal(_ event: PlannedEvent) -> String? {
        EventImporter.isCancellation(event)
            ? "the event is cancelled (STATUS:CANCELLED or METHOD:CANCEL): nothing to create" : nil
    }

    /// Removes the file `name` when it is the pull's copy of an event this push made: a run killed after
    /// Graph created the event and before the state recorded it leaves the event unrecorded, and the next
    /// run's pull writes it as a file of its own (named from Graph's iCalUId) before its push finds the
    /// event again by the new file's source UID. The file made here is the event's source, so the copy
    /// goes, unless it was changed since the pull wrote it (then the create is refused, both files kept).
    /// The file goes before its record (which the caller drops when it records the new file): a run killed
    /// in between leaves the copy's record without its file, so the next push deletes that event and creates
    /// it again from the new file (nothing lost, never two events); the other order would leave an
    /// unrecorded copy that a push would create as a second event.
    func removePulledCopy(_ name: String) throws -> Bool {
        guard let record = try state.items(of: pairing).first(where: { $0.fileName == name }),
            let entry = try folder.entry(name)
        else { return false }
        guard try record.matches(entry) || folder.read(name).sha256 == record.sha256 else { return false }
        try folder.delete(name)
        return true
    }

    // MARK: Update

    /// What the update of a changed file comes to, decided from Graph's event before anything is written:
    /// ``update(_:overriding:owners:)`` acts on it and a dry run (``preview(_:overriding:)``) reports it, so
    /// both decide alike.
    enum UpdateStep {
        /// Nothing is sent: a conflict, a refusal, a held meeting, a file that was not read.
        case outcome(PushedItem.Outcome)
        /// Deleted in Outlook, and the local version won: the event is made again.
        case recreate
        /// Sent (or, when nothing Graph holds changed, only recorded).
        case send(UpdateSend)
    }

    /// What an update sends, read from Graph's event and the file.
    struct UpdateSend {
        var graph: GraphItemState
        /// What changed against Graph's event, and what goes to Graph (``GraphItemState/decideUpdate``).
        var plan: UpdatePlan
        /// Graph already holds this very file (a run killed before recording its own change).
        var landed: Bool
        var isSeries: Bool

        /// Whether a PATCH goes out; otherwise the file's new hash is only recorded.
        var sends: Bool { !landed && plan.sends }
        /// What the report says once it is done.
        var outcome: PushedItem.Outcome { sends || landed ? .pushed(.changed) : .recorded }
    }

    /// The checks of an update (change key, and the one decision of what goes to Graph: the mail rule, an
    /// online meeting's body, a series made single), reading Graph only.
    func updateStep(_ action: PushAction, overriding: Bool) throws -> UpdateStep {
        guard let event = action.event, let file = action.file, let recorded = action.record,
            let id = recorded.graphID
        else { return .outcome(.failed(reason: "the file was not read", requestID: nil)) }
        guard let graph = try current(id) else {
            // Deleted in Outlook: a conflict, unless the local version won it, which makes the event again.
            guard overriding else {
                return .outcome(.conflict(reason: "deleted in Outlook since the last sync, and changed here"))
            }
            return .recreate
        }
        var landed = false
        if !overriding, graph.changeKey != recorded.changeKey {
            // Graph's change key moved: changed in Outlook, unless it is this file's own change, sent by a run
            // killed before it could record it.
            landed = try holdsFile(id, file.sha256)
            guard landed else {
                return .outcome(.conflict(reason: "changed in Outlook since the last sync, and changed here"))
            }
        }
        let isSeries = event.payload.recurrence != nil
        // Every PATCH carries the file's property; a series' occurrences are applied again whatever its
        // master's change.
        switch graph.decideUpdate(
            to: event, options: settings.importOptions, appliesOccurrences: isSeries && !event.followUps.isEmpty,
            alsoSending: ["singleValueExtendedProperties"], mayMail: settings.notifiesAttendees)
        {
        case .refused(let reason): return .outcome(.refused(reason: reason))
        case .held(let attendees): return .outcome(.held(attendees: attendees))
        case .send(let plan):
            return .send(UpdateSend(graph: graph, plan: plan, landed: landed, isSeries: isSeries))
        }
    }

    /// Changes the event of a changed file: the checks (``updateStep(_:overriding:)``), the PATCH with
    /// `If-Match`, a series' occurrences, the record. The overrides Graph refused to move past a neighbour's
    /// day, made events of their own, go to `moved`; those made before are found among `linked` (by the
    /// transactionId naming the series, whatever UID the file has) and changed there.
    func update(
        _ action: PushAction, overriding: Bool, owners: inout [String: String], linked: MovedOccurrenceIndex,
        moved: inout [ImportResult.MovedOccurrence]
    ) throws -> PushedItem.Outcome {
        let step: UpdateSend
        switch try updateStep(action, overriding: overriding) {
        case .outcome(let outcome): return outcome
        case .recreate:
            if let id = action.record?.graphID { owners[id] = nil }
            return try create(action, owners: &owners, linked: linked, moved: &moved).0
        case .send(let send): step = send
        }
        guard let event = action.event, let file = action.file, let recorded = action.record,
            let id = recorded.graphID
        else { return .failed(reason: "the file was not read", requestID: nil) }
        let graph = step.graph
        var changeKey = graph.changeKey
        // Nothing Graph holds changed: nothing is sent, and the file's new hash is recorded below; unless the
        // series' occurrences are applied again, which moves the master's change key: then the file's hash goes
        // first, so that a run killed before recording finds its own change (``holdsFile(_:_:)``).
        if step.sends {
            try beforeWriting?(action)
            // Every PATCH carries the file's hash (kill safety: ``holdsFile(_:_:)``) and the import's identity.
            let properties =
                (event.updatePayload.singleValueExtendedProperties ?? [])
                + [GraphSingleValueExtendedProperty(id: Self.filePropertyID, value: Self.fileValue(file.sha256))]
            if let body = try step.plan.patch(of: event, graph: graph, adding: properties) {
                let etag =
                    overriding ? graph.etag ?? "*" : GraphItemState.etag(forChangeKey: recorded.changeKey ?? "")
                let answer = try client.updateEvent(id: id, patch: body, ifMatch: etag)
                changeKey = try GraphItemState(answer, operation: "updating event \(id)").changeKey
            }
        }
        // The events of their own that hold occurrences of the series moved past a neighbour's day.
        var separate = step.isSeries ? try linked.events(ofSeries: id).map(\.id) : []
        if step.isSeries {
            if step.plan.appliesOccurrences {
                let item = ImportItem(file: path(action.fileName), event: event)
                let result = try EventImporter(client: client).finishSeries(
                    of: item, seriesID: id, attendees: graph.attendees, movedEventIDs: separate)
                if result.action == .failed {
                    return .failed(reason: result.error ?? "its occurrences were not changed", requestID: nil)
                }
                moved += result.movedOccurrences
                separate += result.movedOccurrences.map(\.eventID)
            }
            // The occurrences' changes gave the master a new change key.
            changeKey = try current(id)?.changeKey ?? changeKey
        }
        try record(
            action, graphID: id, changeKey: changeKey,
            occurrences: try occurrences(ofSeries: id, isSeries: step.isSeries, moved: separate))
        return step.outcome
    }

    // MARK: Delete

    /// What the deletion of a deleted file's event comes to, decided from Graph's event before anything is
    /// written: ``delete(_:overriding:)`` acts on it and a dry run (``preview(_:overriding:)``) reports it.
    enum DeleteStep {
        /// Gone from Graph already: only the record goes.
        case gone
        /// Nothing is deleted: a conflict or a held meeting; with the event's subject as Graph has it.
        case outcome(PushedItem.Outcome, subject: String?)
        /// Deleted with `If-Match`.
        case send(GraphItemState, id: String)
    }

    /// The checks of a deletion (change key, meeting), reading Graph only.
    func deleteStep(_ action: PushAction, overriding: Bool) throws -> DeleteStep {
        guard let record = action.record, let id = record.graphID else {
            return .outcome(.failed(reason: "the item has no Graph event", requestID: nil), subject: nil)
        }
        guard let graph = try current(id) else { return .gone }
        if !overriding, graph.changeKey != record.changeKey {
            return .outcome(
                .conflict(reason: "changed in Outlook since the last sync, and deleted here"), subject: graph.subject)
        }
        if graph.mails(.delete), !settings.notifiesAttendees {
            return .outcome(.held(attendees: graph.attendees), subject: graph.subject)
        }
        return .send(graph, id: id)
    }

    /// Deletes the event of a deleted file: the checks (``deleteStep(_:overriding:)``), then DELETE with
    /// `If-Match`; an event already gone just drops the record.
    /// Returns the outcome and the event's subject as Graph has it (the file is gone: the report names it so).
    func delete(_ action: PushAction, overriding: Bool) throws -> (PushedItem.Outcome, String?) {
        let graph: GraphItemState
        let id: String
        switch try deleteStep(action, overriding: overriding) {
        case .gone:
            try forget(action)
            return (.pushed(.deleted), nil)
        case .outcome(let outcome, let subject): return (outcome, subject)
        case .send(let state, let eventID): (graph, id) = (state, eventID)
        }
        try beforeWriting?(action)
        let etag =
            overriding ? graph.etag ?? "*" : GraphItemState.etag(forChangeKey: action.record?.changeKey ?? "")
        do {
            try client.deleteEvent(id: id, ifMatch: etag)
        } catch let error as GraphError where error.kind == .notFound {
            // Gone meanwhile: what was asked for.
        }
        try forget(action)
        return (.pushed(.deleted), graph.subject)
    }

    // MARK: Reading Graph

    /// The event `id` as Graph has it now; nil when Graph no longer has it (404).
    func current(_ id: String) throws -> GraphItemState? {
        do {
            return try GraphItemState(client.event(id: id), operation: "reading event \(id)")
        } catch let error as GraphError where error.kind == .notFound {
            return nil
        }
    }

    /// Whether the event `id` carries ``filePropertyID`` with the hash `sha256`: an earlier push sent this
    /// very file to it.
    func holdsFile(_ id: String, _ sha256: Data) throws -> Bool {
        try client.findEvents(withExtendedProperty: Self.filePropertyID, value: Self.fileValue(sha256))
            .contains { $0.id == id }
    }
}
