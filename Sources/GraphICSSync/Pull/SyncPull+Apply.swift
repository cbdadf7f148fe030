import Foundation
import GraphICS
import ICalBridge

/// The local file of an item, compared with its record and with Graph's version.
enum LocalFile {
    /// No file.
    case absent
    /// The file is as the last sync recorded it (same stat, or same hash).
    case asRecorded(VdirEntry)
    /// The file already holds Graph's version (a killed run wrote it and did not record it).
    case holdsWanted(VdirEntry)
    /// The file was changed here since the last sync (or was never recorded and is not Graph's version).
    case changed
}

/// What pulling one update means for its file, given the file and its record.
enum UpdateStanding {
    /// Write Graph's version (the item is new here, or its file is as recorded and Graph changed it).
    case write(PullReport.Action)
    /// The file already holds Graph's version: record it (reported as pulled).
    case record(PullReport.Action, VdirEntry)
    /// The file is as recorded and holds Graph's version: record it again (change key, occurrences).
    case unchanged(VdirEntry)
    /// The file changed here (or was deleted here): keep it, unless told to overwrite it.
    case kept(PullReport.Action)
}

/// What pulling one deletion means for its file.
enum DeletionStanding {
    /// The file is as recorded: delete it and its record.
    case delete
    /// The file is already gone, or no sync ever wrote it: forget the record, leave any file.
    case forget
    /// The file changed here: keep it and its record, unless told to delete it.
    case kept
}

extension SyncPull {
    /// Carries `plan` out: writes the files of its updates and deletes the files of its deletions, batch by
    /// batch (files first, then one transaction recording them), then stores what the next pull starts from.
    ///
    /// Every file is looked at again first (a file changed since the plan is kept back too). A file named
    /// in `overwriting` (a conflict Graph's side won) is written with Graph's version, or deleted, even when
    /// it changed here, after `archive(fileName, localContents)` was given its text. The delta link of a
    /// changes round is stored only when nothing was kept back; a full round's is stored in any case, and
    /// each item kept back keeps a record without change key, so that later pulls read its event again.
    public func apply(
        _ plan: PullPlan, overwriting: Set<String> = [], archive: (String, Data) throws -> Void = { _, _ in }
    ) throws -> PullReport {
        try withoutActuallyEscaping(archive) { archive in
            var report = PullReport(round: plan.round, window: plan.window)
            report.diagnostics = plan.diagnostics
            report.unchanged = plan.unchanged
            report.outsideWindow = plan.outsideWindow
            report.unconfirmed = plan.unconfirmed
            report.confirmations = plan.confirmations
            // A round with nothing to apply (the usual quiet one) does not read the records again.
            let list = plan.updates.isEmpty && plan.deletions.isEmpty ? [] : try state.items(of: pairing)
            let records = Dictionary(list.map { ($0.fileName, $0) }) { first, _ in first }
            let resolution = Resolution(overwriting: overwriting, archive: archive)
            var start = 0
            while start < plan.updates.count {
                let batch = plan.updates[start..<min(start + batchSize, plan.updates.count)]
                try applyBatch(Array(batch), records: records, resolution, &report)
                start += batchSize
            }
            for record in plan.deletions {
                try delete(record, resolution, &report)
            }
            try state.transaction {
                for record in plan.leftWindow {
                    var marked = record
                    marked.outsideWindow = true
                    try state.upsert(marked, in: pairing)
                }
            }
            try settle(plan, records: records, &report)
            return report
        }
    }

    /// Fills in what `plan` would do per item (from the folder's files, read only).
    func classify(_ plan: inout PullPlan, records list: [SyncItemRecord]) throws {
        let records = Dictionary(list.map { ($0.fileName, $0) }) { first, _ in first }
        claimFiles(&plan, records: list)
        for update in plan.updates {
            switch try standing(of: update, record: records[update.fileName]) {
            case .write(let action), .record(let action, _):
                plan.items.append(.init(fileName: update.fileName, uid: update.uid, action: action))
            case .unchanged:
                plan.unchanged += 1
            case .kept(let action):
                plan.keptLocalChanges.append(.init(fileName: update.fileName, uid: update.uid, wouldHave: action))
            }
        }
        for record in plan.deletions {
            switch try standing(ofDeletion: record) {
            case .delete: plan.items.append(.init(fileName: record.fileName, uid: record.uid, action: .deleted))
            case .kept:
                plan.keptLocalChanges.append(.init(fileName: record.fileName, uid: record.uid, wouldHave: .deleted))
            case .forget: break
            }
        }
    }

    /// Leaves out, before anything is written, every update whose file another Graph event has: two Graph
    /// events with one UID would share a file (and a UID khal and vdirsyncer see twice), and the state
    /// records one event per file and per UID. Only the first of a round, or the one already recorded, is
    /// pulled; the others are named in a warning. A new event whose file or UID is that of an event the
    /// round deletes (Graph replaced it) takes its file over instead, and that deletion is left out.
    private func claimFiles(_ plan: inout PullPlan, records: [SyncItemRecord]) {
        let byFileName = Dictionary(records.map { ($0.fileName, $0) }) { first, _ in first }
        let byUID = Dictionary(records.map { ($0.uid, $0) }) { first, _ in first }
        var replaced = Set(plan.deletions.map(\.fileName))
        var claimed: [String: String] = [:]
        plan.updates = plan.updates.compactMap { wanted in
            var update = wanted
            let holders = [byFileName[update.fileName], byUID[update.uid]].compactMap { $0 }
                .filter { $0.graphID != update.graphID }
            if let holder = holders.first {
                guard Set(holders.map(\.fileName)).count == 1, replaced.remove(holder.fileName) != nil else {
                    warn(
                        update,
                        "UID \(update.uid) is synced as \(holder.fileName) (Graph event "
                            + "\(holder.graphID ?? "none")); this event is not pulled", &plan.diagnostics)
                    return nil
                }
                update.fileName = holder.fileName
                plan.deletions.removeAll { $0.fileName == holder.fileName }
            }
            guard let first = claimed[update.fileName] else {
                claimed[update.fileName] = update.graphID
                return update
            }
            warn(
                update, "Graph has another event (\(first)) with UID \(update.uid); only that one is pulled",
                &plan.diagnostics)
            return nil
        }
    }

    private func warn(_ update: PullUpdate, _ message: String, _ diagnostics: inout [Diagnostic]) {
        diagnostics.append(
            Diagnostic(.warning, message, file: folder.filePath(update.fileName), eventID: update.graphID))
    }

    // MARK: Applying

    /// The files a conflict won by Graph lets the pull overwrite, and where their text goes first.
    private struct Resolution {
        var overwriting: Set<String>
        var archive: (String, Data) throws -> Void

        /// Hands the text of `name` (when there is a file) to the archive; true when the file may then be
        /// overwritten or deleted.
        func release(_ name: String, in folder: VdirFolder) throws -> Bool {
            guard overwriting.contains(name) else { return false }
            if try folder.entry(name) != nil {
                try archive(name, try folder.read(name).contents)
            }
            return true
        }
    }

    private func applyBatch(
        _ batch: [PullUpdate], records: [String: SyncItemRecord], _ resolution: Resolution,
        _ report: inout PullReport
    ) throws {
        var writes: [(PullUpdate, PullReport.Action)] = []
        var recorded: [(PullUpdate, VdirEntry)] = []
        for update in batch {
            switch try standing(of: update, record: records[update.fileName]) {
            case .write(let action):
                writes.append((update, action))
            case .kept(let action):
                if try resolution.release(update.fileName, in: folder) {
                    writes.append((update, action))
                } else {
                    report.keptLocalChanges.append(
                        .init(fileName: update.fileName, uid: update.uid, wouldHave: action))
                }
            case .unchanged(let entry):
                report.unchanged += 1
                recorded.append((update, entry))
            case .record(let action, let entry):
                report.pulled.append(.init(fileName: update.fileName, uid: update.uid, action: action))
                recorded.append((update, entry))
            }
        }
        let entries = try folder.write(batch: writes.map { ($0.0.fileName, $0.0.contents) })
        for ((update, action), entry) in zip(writes, entries) {
            report.pulled.append(.init(fileName: update.fileName, uid: update.uid, action: action))
            recorded.append((update, entry))
        }
        try beforeRecording?()
        try state.transaction {
            for (update, entry) in recorded {
                try record(update, entry)
            }
        }
    }

    private func record(_ update: PullUpdate, _ entry: VdirEntry) throws {
        try state.upsert(
            SyncItemRecord(
                fileName: update.fileName, uid: update.uid, graphID: update.graphID, changeKey: update.changeKey,
                size: entry.size, modificationNanoseconds: entry.modificationNanoseconds, sha256: update.sha256,
                outsideWindow: update.outsideWindow),
            in: pairing)
        try state.setOccurrences(
            update.occurrenceIDs, changeKeys: update.occurrenceChangeKeys, of: update.fileName, in: pairing)
    }

    /// Deletes an item Graph no longer has in the window: its file (unless changed here) and its record.
    private func delete(_ record: SyncItemRecord, _ resolution: Resolution, _ report: inout PullReport) throws {
        switch try standing(ofDeletion: record) {
        case .kept:
            guard try resolution.release(record.fileName, in: folder) else {
                report.keptLocalChanges.append(.init(fileName: record.fileName, uid: record.uid, wouldHave: .deleted))
                return
            }
            fallthrough
        case .delete:
            try folder.delete(record.fileName)
            report.pulled.append(.init(fileName: record.fileName, uid: record.uid, action: .deleted))
        case .forget:
            break
        }
        try state.transaction {
            try state.deleteItem(fileName: record.fileName, in: pairing)
            try state.clearOccurrences(of: record.fileName, in: pairing)
        }
    }

    /// Stores what the next pull starts from (see ``PullCheckpoint``). A delta link is not stored while a
    /// deletion is unconfirmed, so that the next run's round reports the item again and Graph is asked again.
    private func settle(_ plan: PullPlan, records: [String: SyncItemRecord], _ report: inout PullReport) throws {
        switch plan.checkpoint {
        case .unlessKept(let checkpoint):
            // A change kept back for a local edit must come again until the push layer settles it.
            if report.keptLocalChanges.isEmpty, plan.unconfirmed.isEmpty {
                try state.saveDeltaCheckpoint(checkpoint, for: pairing)
            }
        case .marking(let checkpoint):
            let updates = Dictionary(plan.updates.map { ($0.fileName, $0) }) { first, _ in first }
            try state.transaction {
                for kept in report.keptLocalChanges {
                    if let mark = Self.mark(records[kept.fileName], update: updates[kept.fileName]) {
                        try state.upsert(mark, in: pairing)
                    }
                }
                if plan.unconfirmed.isEmpty { try state.saveDeltaCheckpoint(checkpoint, for: pairing) }
            }
        }
    }

    /// The record that makes later pulls read a kept item's event again: its record without change key,
    /// or for an item never synced here a placeholder (size −1, no hash: the file is never taken as
    /// recorded, so it is neither overwritten nor pushed as unchanged).
    static func mark(_ record: SyncItemRecord?, update: PullUpdate?) -> SyncItemRecord? {
        if var record {
            record.changeKey = nil
            return record
        }
        guard let update else { return nil }
        return SyncItemRecord(
            fileName: update.fileName, uid: update.uid, graphID: update.graphID, changeKey: nil, size: -1,
            modificationNanoseconds: -1, sha256: Data())
    }

    // MARK: Standing of one file

    /// What pulling `update` means for its file.
    func standing(of update: PullUpdate, record: SyncItemRecord?) throws -> UpdateStanding {
        let synced = record.flatMap { $0.isPlaceholder ? nil : $0 }
        let action: PullReport.Action = synced == nil ? .new : .changed
        switch try localFile(update.fileName, record: record, wanted: update.sha256) {
        case .absent: return synced == nil ? .write(action) : .kept(action)
        case .changed: return .kept(action)
        case .asRecorded(let entry): return record?.sha256 == update.sha256 ? .unchanged(entry) : .write(action)
        case .holdsWanted(let entry): return .record(action, entry)
        }
    }

    /// What deleting the item of `record` means for its file.
    func standing(ofDeletion record: SyncItemRecord) throws -> DeletionStanding {
        guard !record.isPlaceholder else { return .forget }
        switch try localFile(record.fileName, record: record, wanted: nil) {
        case .changed, .holdsWanted: return .kept
        case .asRecorded: return .delete
        case .absent: return .forget
        }
    }

    /// How the file `name` stands: `stat` first, read and hashed only when the stat differs from `record`.
    func localFile(_ name: String, record: SyncItemRecord?, wanted: Data?) throws -> LocalFile {
        guard let entry = try folder.entry(name) else { return .absent }
        if let record, record.matches(entry) { return .asRecorded(entry) }
        let item = try folder.read(name)
        if let record, item.sha256 == record.sha256 { return .asRecorded(item.entry) }
        if let wanted, item.sha256 == wanted { return .holdsWanted(item.entry) }
        return .changed
    }
}
