import Foundation
import ICalBridge

/// `import --dry-run`: what the writes would be, after the lookups, without sending them.
extension ImportRun {
    /// The result of every event as the writes would make it, marked ``ImportResult/isPreview``.
    func previewResults() -> [ImportResult] {
        for index in creates { finish(index, .created) }
        for (index, targets) in updates { finish(index, .updated, eventID: targets.first?.event.id) }
        for (index, found) in cancels { previewCancel(index, found: found) }
        for task in series where task.mode == .cancellingOccurrence {
            finish(task.index, .cancelled, eventID: task.seriesID, note: "one occurrence of the series")
        }
        return finalResults().map { result in
            var preview = result
            preview.isPreview = true
            return preview
        }
    }

    /// A cancellation: of what the lookup found, or of the event an earlier part of the input would create.
    private func previewCancel(_ index: Int, found: [ExistingEvent]) {
        let createdEarlier = creates.contains { $0 < index && keys[$0] == keys[index] }
        guard !found.isEmpty || createdEarlier else {
            finish(index, .skipped, note: "nothing to cancel: not in the calendar")
            return
        }
        if let refusal = cancelRefusal(found) {
            finish(index, .failed, eventID: refusal.id, error: refusal.error)
            return
        }
        finish(index, .cancelled, eventID: found.first?.id)
    }
}
