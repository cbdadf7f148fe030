import Foundation
import GraphICS
import ICalBridge

// Conflicts: the items changed on both sides, what differs between the two versions, whether keeping the
// local one would make Graph mail attendees, who wins, and the ones settled before that stay settled while
// the push holds them.
extension SyncRun {
    /// The items the pull kept back for a local edit that the push would send: changed on both sides.
    static func conflicts(_ pullPlan: PullPlan?, _ pushPlan: PushPlan) -> [SyncConflict] {
        guard let pullPlan else { return [] }
        let actions = Dictionary(pushPlan.actions.map { ($0.fileName, $0) }) { first, _ in first }
        return pullPlan.keptLocalChanges.compactMap { kept in
            guard let action = actions[kept.fileName] else { return nil }
            return SyncConflict(
                fileName: kept.fileName, uid: kept.uid ?? action.uid, subject: action.subject,
                local: SyncReport.Change(action.kind), graph: SyncReport.Change(kept.wouldHave))
        }
    }

    /// Whether Graph's change of a conflict is the local file itself, sent by a run killed before it could
    /// record it (Graph's event carries the file's hash, which every push writes): no conflict, the push
    /// records it. One request per such item, and only for items changed on both sides.
    func sentBefore(_ conflict: SyncConflict, _ pushPlan: PushPlan) throws -> Bool {
        guard
            let action = pushPlan.actions.first(where: { $0.fileName == conflict.fileName }), action.kind == .update,
            let id = action.graphID ?? action.record?.graphID, let file = action.file
        else { return false }
        return try push.holdsFile(id, file.sha256)
    }

    /// The files whose local change a push held before, unchanged since (the same hash, or still deleted):
    /// reported once already, and a conflict about them was settled for the local side.
    static func heldAgain(_ pushPlan: PushPlan, held hashes: [String: Data]) -> Set<String> {
        Set(
            pushPlan.actions.compactMap { action in
                guard let held = hashes[action.fileName] else { return nil }
                let now = action.kind == .delete ? Data() : action.file?.sha256
                return now == held ? action.fileName : nil
            })
    }

    /// The conflicts with what differs between the two versions (subject, times, location, as the import's
    /// mapping reads both files) and whether keeping the local one would make Graph mail the attendees
    /// (``MailingRule``; one request per conflict that changes or deletes an event).
    func describe(_ conflicts: [SyncConflict], _ pullPlan: PullPlan?, _ pushPlan: PushPlan) throws -> [SyncConflict] {
        guard !conflicts.isEmpty else { return [] }
        let actions = Dictionary(pushPlan.actions.map { ($0.fileName, $0) }) { first, _ in first }
        return try conflicts.map { found in
            var conflict = found
            guard let action = actions[conflict.fileName] else { return conflict }
            if let local = action.event?.payload,
                let contents = pullPlan.flatMap({ pull.graphVersion(ofFile: conflict.fileName, in: $0) }),
                let graph = graphEvent(contents)
            {
                conflict.differences = Self.differences(local: local, graph: graph)
            }
            if let id = action.graphID ?? action.record?.graphID, let current = try push.current(id) {
                let change: MailingRule.Change = action.kind == .delete ? .delete : .update
                conflict.attendeesMailed = current.mails(change) ? current.attendees : 0
            }
            return conflict
        }
    }

    /// Graph's version of an item file, read with the import's mapping as the local file is.
    private func graphEvent(_ contents: Data) -> GraphEvent? {
        let settings = push.settings
        return (try? ICSToGraph.plan(contents, options: settings.importOptions, settings: settings.importSettings))?
            .events.first?.payload
    }

    /// One line per property that differs: `subject: "My lunch" here, "Outlook lunch" in Outlook`.
    static func differences(local: GraphEvent, graph: GraphEvent) -> [String] {
        func when(_ time: GraphDateTimeTimeZone?) -> String? {
            guard let time, let text = time.dateTime else { return nil }
            return "\(text.replacingOccurrences(of: "T", with: " ").prefix(16)) \(time.timeZone ?? "")"
        }
        let pairs: [(String, String?, String?)] = [
            ("subject", local.subject, graph.subject), ("start", when(local.start), when(graph.start)),
            ("end", when(local.end), when(graph.end)),
            ("location", local.location?.displayName, graph.location?.displayName),
        ]
        return pairs.compactMap { name, mine, theirs in
            guard (mine ?? "") != (theirs ?? "") else { return nil }
            let quoted = { (value: String?) in value.map { "\"\($0)\"" } ?? "none" }
            return "\(name): \(quoted(mine)) here, \(quoted(theirs)) in Outlook"
        }
    }

    /// Who wins each conflict: Outlook for a file given to `--discard`; else the policy, or under `ask` the
    /// resolver (skip without one, and in a dry run).
    /// With `--pull-only` nothing is sent, so the local side cannot win.
    func resolve(_ conflicts: [SyncConflict]) -> [String: SyncReport.Resolution] {
        var resolutions: [String: SyncReport.Resolution] = [:]
        for conflict in conflicts {
            var resolution: SyncReport.Resolution
            switch options.conflicts {
            case _ where options.discarding.contains(conflict.fileName): resolution = .graph
            case .graph: resolution = .graph
            case .local: resolution = .local
            case .ask: resolution = options.dryRun ? .skip : resolver?(conflict) ?? .skip
            }
            if resolution == .local, !options.direction.pushes { resolution = .skip }
            resolutions[conflict.fileName] = resolution
        }
        return resolutions
    }
}
