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

extension SyncPull {
    /// Writes `updates` and deletes the files of `deletions`, batch by batch (files first, then one
    /// transaction recording them), then saves `checkpoint` unless a local change was kept back.
    func apply(
        _ updates: [PullUpdate], deleting deletions: [SyncItemRecord], checkpoint: DeltaCheckpoint,
        _ report: inout PullReport
    ) throws {
        let records = Dictionary(try state.items(of: pairing).map { ($0.fileName, $0) }) { first, _ in first }
        let updates = distinctFiles(updates, &report)
        var start = 0
        while start < updates.count {
            let batch = updates[start..<min(start + batchSize, updates.count)]
            try applyBatch(Array(batch), records: records, &report)
            start += batchSize
        }
        for record in deletions {
            try delete(record, &report)
        }
        // A change kept back for a local edit must come again until the push layer settles it: the delta
        // link is advanced only when nothing was kept back.
        if report.keptLocalChanges.isEmpty {
            try state.saveDeltaCheckpoint(checkpoint, for: pairing)
        }
    }

    /// The updates with one per file: two Graph events with one UID would share a file (and a UID khal
    /// and vdirsyncer see twice), so only the first is pulled and the others are named in a warning.
    private func distinctFiles(_ updates: [PullUpdate], _ report: inout PullReport) -> [PullUpdate] {
        var seen: [String: String] = [:]
        return updates.filter { update in
            guard let first = seen[update.fileName] else {
                seen[update.fileName] = update.graphID
                return true
            }
            report.diagnostics.append(
                Diagnostic(
                    .warning, "Graph has another event (\(first)) with UID \(update.uid); only that one is pulled",
                    file: folder.filePath(update.fileName), eventID: update.graphID))
            return false
        }
    }

    private func applyBatch(_ batch: [PullUpdate], records: [String: SyncItemRecord], _ report: inout PullReport)
        throws
    {
        var writes: [PullUpdate] = []
        var recorded: [(PullUpdate, VdirEntry)] = []
        for update in batch {
            let record = records[update.fileName]
            let action: PullReport.Action = record == nil ? .new : .changed
            switch try localFile(update.fileName, record: record, wanted: update.sha256) {
            case .absent where record != nil, .changed:
                report.keptLocalChanges.append(.init(fileName: update.fileName, uid: update.uid, wouldHave: action))
            case .absent:
                writes.append(update)
            case .asRecorded(let entry):
                if record?.sha256 == update.sha256 {
                    report.unchanged += 1
                    recorded.append((update, entry))
                } else {
                    writes.append(update)
                }
            case .holdsWanted(let entry):
                report.pulled.append(.init(fileName: update.fileName, uid: update.uid, action: action))
                recorded.append((update, entry))
            }
        }
        let entries = try folder.write(batch: writes.map { ($0.fileName, $0.contents) })
        for (update, entry) in zip(writes, entries) {
            let action: PullReport.Action = records[update.fileName] == nil ? .new : .changed
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
                size: entry.size, modificationNanoseconds: entry.modificationNanoseconds, sha256: update.sha256),
            in: pairing)
        try state.setOccurrences(update.occurrenceIDs, of: update.fileName, in: pairing)
    }

    /// Deletes an item Graph no longer has in the window: its file (unless changed here) and its record.
    private func delete(_ record: SyncItemRecord, _ report: inout PullReport) throws {
        switch try localFile(record.fileName, record: record, wanted: nil) {
        case .changed, .holdsWanted:
            report.keptLocalChanges.append(.init(fileName: record.fileName, uid: record.uid, wouldHave: .deleted))
            return
        case .asRecorded:
            try folder.delete(record.fileName)
            report.pulled.append(.init(fileName: record.fileName, uid: record.uid, action: .deleted))
        case .absent:
            break
        }
        try state.transaction {
            try state.deleteItem(fileName: record.fileName, in: pairing)
            try state.clearOccurrences(of: record.fileName, in: pairing)
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
