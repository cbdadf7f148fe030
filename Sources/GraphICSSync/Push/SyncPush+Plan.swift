import Foundation
import GraphICS
import ICalBridge

extension SyncPush {
    /// Every local change since the last sync, as actions; reads the folder and the state, nothing else.
    ///
    /// `earlier`, a plan of the same run made before the pull changed the folder and the records: a file
    /// whose stat (size, modification time, inode) is still what that plan read is taken from it, bytes,
    /// hash and mapping, instead of being read and mapped again; a file the pull wrote is a new inode.
    public func plan(reusing earlier: PushPlan? = nil) throws -> PushPlan {
        let entries = try folder.scan()
        let records = try state.items(of: pairing)
        let present = Set(entries.map(\.name))
        var recorded = Dictionary(records.map { ($0.fileName, $0) }) { first, _ in first }
        // A record whose file is gone, found again under another name by its UID: the item was renamed.
        var vanished = Dictionary(
            records.filter { !present.contains($0.fileName) && $0.graphID != nil }.map { ($0.uid, $0) }
        ) { first, _ in first }
        var owners = Dictionary(records.filter { present.contains($0.fileName) }.map { ($0.uid, $0.fileName) }) {
            first, _ in first
        }
        var plan = PushPlan()
        for entry in entries {
            let record = recorded[entry.name].flatMap { $0.graphID == nil ? nil : $0 }
            if let record, record.matches(entry) { continue }
            let planned: PlannedFile
            if let read = earlier?.reads[entry.name], read.file.entry == entry {
                planned = read
            } else {
                guard let file = read(entry.name, &plan) else { continue }
                // Only touched: neither mapped nor kept for a later plan.
                if let record, file.sha256 == record.sha256 { continue }
                planned = PlannedFile(file: file, mapping: map(file))
            }
            let (file, mapping) = (planned.file, planned.mapping)
            if let record, file.sha256 == record.sha256 { continue }
            plan.reads[entry.name] = planned
            plan.diagnostics += mapping.diagnostics
            if let problem = mapping.problem { plan.problems.append(problem) }
            guard let event = mapping.event else { continue }
            let uid = event.sourceUID
            var action = PushAction(
                fileName: entry.name, uid: uid, subject: event.payload.subject, kind: .create, graphID: nil,
                file: file, event: event, record: nil)
            if let record {
                guard record.uid == uid else {
                    plan.problems.append(
                        problem(
                            action,
                            .refused(
                                reason: "its UID changed from \(record.uid) since the last sync, and Graph keeps an "
                                    + "event's UID; restore the UID, or save the event as a new file")))
                    continue
                }
                (action.kind, action.graphID, action.record) = (.update, record.graphID, record)
            } else if let moved = vanished.removeValue(forKey: uid) {
                (action.kind, action.graphID, action.record) = (.update, moved.graphID, moved)
                action.renamedFrom = moved.fileName
                recorded[moved.fileName] = nil
            } else if let owner = owners[uid], owner != entry.name {
                plan.problems.append(
                    problem(
                        action, .refused(reason: "\(owner) has the same UID; a synced folder holds one file per UID")))
                continue
            }
            if action.kind == .create, let refusal = Self.createRefusal(event) {
                plan.problems.append(problem(action, .refused(reason: refusal)))
                continue
            }
            owners[uid] = entry.name
            plan.actions.append(action)
        }
        for record in records where !present.contains(record.fileName) && recorded[record.fileName] != nil {
            plan.actions.append(
                PushAction(
                    fileName: record.fileName, uid: record.uid, subject: nil, kind: .delete, graphID: record.graphID,
                    record: record))
        }
        return plan
    }

    /// The item `name` read and hashed; nil when it went between the scan and the read (the next plan
    /// sees it gone), or, with the reason in `plan`, when it cannot be read.
    func read(_ name: String, _ plan: inout PushPlan) -> VdirItem? {
        do {
            return try folder.read(name)
        } catch let error as SyncStoreError where error.errno == ENOENT {
            return nil
        } catch {
            plan.problems.append(
                problem(PushAction(fileName: name, kind: .create), .failed(reason: "\(error)", requestID: nil)))
            return nil
        }
    }

    /// The one event (or series) of `file` as the import maps it for ``settings``; no event, with the reason
    /// as a problem, when it holds no event (left alone, no problem), cannot be read (`failed`) or Graph
    /// cannot hold it as one event (`refused`).
    func map(_ file: VdirItem) -> PlannedFile.Mapping {
        var options = settings.importOptions
        options.strict = true
        options.file = path(file.entry.name)
        let blank = PushAction(fileName: file.entry.name, kind: .create)
        let imported: ImportPlan
        do {
            imported = try ICSToGraph.plan(file.contents, options: options, settings: settings.importSettings)
        } catch {
            return PlannedFile.Mapping(
                problem: problem(blank, .failed(reason: error.message, requestID: nil)),
                diagnostics: [Diagnostic(.error, error.message, file: options.file)])
        }
        // To-dos and journal entries belong to other tools: not an item of the sync, and no complaint.
        guard imported.sourceEvents > 0 else { return PlannedFile.Mapping() }
        var mapping = PlannedFile.Mapping(diagnostics: imported.diagnostics)
        let uids = imported.events.map(\.sourceUID)
        var named = blank
        named.uid = uids.first
        named.subject = imported.events.first?.payload.subject
        if let error = imported.diagnostics.first(where: { $0.severity == .error }) {
            named.uid = named.uid ?? error.eventID
            named.subject = named.subject ?? error.subject
            mapping.problem = problem(named, Self.outcome(of: error))
        } else if let refusal = Self.shapeRefusal(imported.events) {
            mapping.problem = problem(named, .refused(reason: refusal))
        } else {
            mapping.event = imported.events.first
        }
        return mapping
    }

    /// Why the events a file maps to are not one Graph event or series; nil when they are.
    public static func shapeRefusal(_ events: [PlannedEvent]) -> String? {
        let uids = Set(events.map(\.sourceUID))
        if uids.count > 1 {
            let named = uids.sorted().prefix(3).joined(separator: ", ") + (uids.count > 3 ? ", …" : "")
            return "the file holds \(uids.count) events with different UIDs (\(named)); "
                + "a synced file holds one event or one series"
        }
        guard events.count > 1 else { return events.isEmpty ? "the file holds no event graph-ics can read" : nil }
        if let stray = events.dropFirst().first(where: { $0.recurrenceID != nil })?.recurrenceID {
            return
                "the override RECURRENCE-ID \(stray) names no occurrence of the series, so Graph would hold it as an "
                + "event of its own"
        }
        return "the file holds \(events.count) events with one UID and no RECURRENCE-ID; a synced file holds one "
            + "event or one series"
    }

    /// The import's error for a file, as the push reports it: a recurrence Graph cannot hold is refused
    /// (the strict reading's refusal), anything else failed, with its line.
    static func outcome(of error: Diagnostic) -> PushedItem.Outcome {
        let strict = "; refused (--strict)"
        if error.message.hasSuffix(strict) {
            return .refused(reason: String(error.message.dropLast(strict.count)))
        }
        return .failed(reason: (error.line.map { "line \($0): " } ?? "") + error.message, requestID: nil)
    }

    func problem(_ action: PushAction, _ outcome: PushedItem.Outcome) -> PushedItem {
        PushedItem(
            fileName: action.fileName, uid: action.uid, subject: action.subject, graphID: action.graphID,
            outcome: outcome)
    }
}

extension PushAction {
    init(fileName: String, kind: Kind) {
        self.init(fileName: fileName, uid: nil, subject: nil, kind: kind, graphID: nil)
    }
}
