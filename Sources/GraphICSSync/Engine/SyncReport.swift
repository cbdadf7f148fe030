import Foundation
import GraphICSMirror
import ICalBridge

/// What one `graph-ics sync` did (or, for `--dry-run`, would do), item by item: the lines the command
/// prints, its summary, its JSON, and whether the run ends with status 1.
public struct SyncReport: Sendable, Equatable {
    /// What happened to one item file.
    public enum Change: String, Sendable, Equatable {
        case new, changed, deleted
    }

    /// How a conflict ended.
    public enum Resolution: String, Sendable, Equatable {
        /// Outlook's version was written into the folder; the local text is kept.
        case graph
        /// The local file was sent to Outlook; Outlook's version's text is kept.
        case local
        /// Neither side changed.
        case skip
    }

    /// One item's outcome.
    public enum Outcome: Sendable, Equatable {
        /// Graph's change written into the folder (or, in a dry run, that would be).
        case pulled(Change)
        /// The local change sent to Graph (or, in a dry run, that would be).
        case pushed(Change)
        /// The local change touched nothing Graph holds (line endings, properties Outlook does not keep):
        /// nothing was sent, and the file's new version is recorded.
        case recorded
        /// Not sent: Graph would mail `attendees` people about it (`--as-meeting --yes` sends it).
        case held(attendees: Int)
        /// Changed on both sides: how it ended, the kept loser's path, why it is a conflict, and how many
        /// attendees Graph would mail if the local version won (0: nobody).
        case conflict(Resolution, kept: String?, reason: String?, mails: Int = 0)
        /// Graph or the disk refused this item; the others went on.
        case failed(reason: String, requestID: String?)
        /// The item cannot be synced as it is (a rule Graph cannot hold, …); nothing was sent.
        case refused(reason: String)
        /// Outlook still has the event, outside the window the sync follows (moved, or past --past): its
        /// file stays. Reported the first time only.
        case outsideWindow
    }

    public struct Item: Sendable, Equatable {
        public var fileName: String
        public var uid: String?
        public var subject: String?
        public var outcome: Outcome
        /// For an item pushed, what was done besides (``PushedItem/note``): an override of a series Graph refused
        /// to move past a neighbour's day, cancelled in the series and created as an event of its own.
        public var note: String?

        public init(
            fileName: String, uid: String? = nil, subject: String? = nil, outcome: Outcome, note: String? = nil
        ) {
            self.fileName = fileName
            self.uid = uid
            self.subject = subject
            self.outcome = outcome
            self.note = note
        }

        /// Whether the item makes the run end with status 1.
        public var isProblem: Bool {
            switch outcome {
            case .failed, .refused, .conflict(.skip, _, _, _): true
            case .pulled, .pushed, .recorded, .held, .conflict, .outsideWindow: false
            }
        }
    }

    /// Whether the report is a plan (`--dry-run`): nothing was changed.
    public var isDryRun: Bool
    /// The pull's round; nil when nothing was pulled (`--push-only`).
    public var round: PullReport.Round?
    /// The window Graph's changes are followed over: the one asked for, with the pull's lookahead (the
    /// asked one for `--push-only`).
    public var window: SyncWindow
    public var items: [Item] = []
    /// Problems converting Graph's events (those items were left out).
    public var diagnostics: [Diagnostic] = []
    /// Local changes a `--pull-only` run did not send (the next run without it sends them).
    public var unsentLocalChanges = 0
    /// Set when the mass-deletion guard stopped the run before anything changed.
    public var refusal: MassDeletionGuard.Refusal?
    /// Items held again with the local change a run already reported as held (counted, not listed).
    public var heldBefore = 0
    /// How many items the round no longer showed Graph was asked about (a file is deleted only when Graph
    /// answers that the event is gone).
    public var confirmations = 0

    public init(isDryRun: Bool, round: PullReport.Round?, window: SyncWindow) {
        self.isDryRun = isDryRun
        self.round = round
        self.window = window
    }

    /// Whether the run ends with status 1: an item failed, was refused or stayed in conflict, an event
    /// could not be converted, or the mass-deletion guard stopped the run.
    public var hasProblems: Bool {
        refusal != nil || items.contains(where: \.isProblem) || diagnostics.contains { $0.severity == .error }
    }

    /// The items that are problems (what `--quiet` prints).
    public var problems: [Item] { items.filter(\.isProblem) }
}

// MARK: Text

extension SyncReport.Outcome {
    /// The first column of the item's line.
    func label(dryRun: Bool) -> String {
        switch self {
        case .pulled(let change): (dryRun ? "would pull " : "pulled ") + change.rawValue
        case .pushed(let change): (dryRun ? "would push " : "pushed ") + change.rawValue
        case .recorded: "recorded (nothing Outlook holds changed)"
        case .held(let attendees): "held (would mail \(attendees) attendee\(attendees == 1 ? "" : "s"))"
        case .conflict: "conflict"
        case .failed(let reason, let requestID): "failed: \(reason)" + (requestID.map { " [request-id \($0)]" } ?? "")
        case .refused(let reason): "refused: \(reason)"
        case .outsideWindow: "outside window"
        }
    }

    /// What follows the item's name on a conflict's line.
    func conflictNote(dryRun: Bool) -> String? {
        guard case .conflict(let resolution, let kept, let reason, let mails) = self else { return nil }
        let why = reason ?? "changed here and in Outlook since the last sync"
        switch (resolution, dryRun) {
        case (.graph, true): return "\(why); would keep Outlook's version and copy yours to the conflicts folder"
        case (.local, true): return "\(why); would keep yours and copy Outlook's version to the conflicts folder"
        case (.graph, false):
            return kept.map { "Outlook's version kept; yours is kept under \($0)" } ?? "Outlook's version kept"
        case (.local, false):
            return kept.map { "your version kept; Outlook's is kept under \($0)" } ?? "your version kept"
        case (.skip, _) where mails > 0:
            return "\(why); neither side changed (--conflict graph keeps Outlook's version; yours is a meeting "
                + "you organise, so keeping it takes --conflict local --as-meeting --yes, which mails its \(mails) "
                + "attendee\(mails == 1 ? "" : "s"))"
        case (.skip, _):
            return "\(why); neither side changed (run with --conflict graph or --conflict local to settle it)"
        }
    }
}

extension SyncReport.Item {
    /// `pulled new  FILE  SUBJECT`, one line, with text from files and Graph made printable; a conflict's
    /// resolution or a push's ``note`` in parentheses after it.
    public func line(dryRun: Bool) -> String {
        var text = outcome.label(dryRun: dryRun) + "  " + fileName
        if let name = subject.flatMap({ $0.isEmpty ? nil : $0 }) ?? uid { text += "  " + name }
        if let note = outcome.conflictNote(dryRun: dryRun) ?? note { text += " (\(note))" }
        return PrintableText.printable(text, lineBreaks: " ")
    }
}

extension SyncReport {
    /// Every item's line, in report order.
    public var lines: [String] { items.map { $0.line(dryRun: isDryRun) } }

    /// How many items of each kind, by the keys the JSON uses.
    public var counts: [String: Int] {
        var counts: [String: Int] = [:]
        for item in items {
            counts[item.countKey, default: 0] += 1
        }
        return counts
    }

    /// One line: what changed, then how Graph was read (`re-read the window` when it was re-anchored).
    public var summary: String {
        let counts = self.counts
        var parts: [String] = []
        for (side, verb) in [
            ("pulled", isDryRun ? "would pull" : "pulled"), ("pushed", isDryRun ? "would push" : "pushed"),
        ] {
            let changes = SyncReport.Change.allCases.compactMap { change -> String? in
                counts["\(side) \(change.rawValue)"].map { "\($0) \(change.rawValue)" }
            }
            if !changes.isEmpty {
                let total = SyncReport.Change.allCases.reduce(0) { $0 + (counts["\(side) \($1.rawValue)"] ?? 0) }
                parts.append("\(verb) \(total) (\(changes.joined(separator: ", ")))")
            }
        }
        for (key, singular, plural) in [
            ("held", "held", "held"), ("conflict", "conflict", "conflicts"), ("failed", "failed", "failed"),
            ("refused", "refused", "refused"), ("outside window", "outside the window", "outside the window"),
            ("recorded", "recorded with nothing to send", "recorded with nothing to send"),
        ] {
            if let count = counts[key] { parts.append("\(count) \(count == 1 ? singular : plural)") }
        }
        let errors = diagnostics.filter { $0.severity == .error }.count
        if errors > 0 { parts.append("\(errors) event\(errors == 1 ? "" : "s") Graph sent could not be converted") }
        var text =
            refusal.map { "stopped: " + $0.description }
            ?? (parts.isEmpty ? "no changes" : parts.joined(separator: ", "))
        if heldBefore > 0 {
            text += "; \(heldBefore) held as before (--as-meeting --yes sends them)"
        }
        if confirmations > 0 {
            text += "; asked Graph about \(confirmations) event\(confirmations == 1 ? "" : "s") gone from the window"
        }
        if unsentLocalChanges > 0 {
            text += "; \(unsentLocalChanges) local change\(unsentLocalChanges == 1 ? "" : "s") not sent (--pull-only)"
        }
        if let round = round?.summary { text += "; " + round }
        if isDryRun { text += "; dry run: nothing was changed" }
        return "sync: " + text
    }
}

extension SyncReport.Change: CaseIterable {}

extension SyncReport.Item {
    /// `pulled new`, `pushed deleted`, `held`, `conflict`, `failed`, `refused`.
    var countKey: String {
        switch outcome {
        case .pulled(let change): "pulled \(change.rawValue)"
        case .pushed(let change): "pushed \(change.rawValue)"
        case .recorded: "recorded"
        case .held: "held"
        case .conflict: "conflict"
        case .failed: "failed"
        case .refused: "refused"
        case .outsideWindow: "outside window"
        }
    }
}

extension PullReport.Round {
    /// How Graph was read, for the summary; nil for an ordinary round of changes.
    var summary: String? {
        switch self {
        case .changes: nil
        case .first: "first sync: read the whole window"
        case .resync: "Graph asked for a full resync: re-read the window and compared it with the folder"
        case .reanchored: "re-read the window (it moves with today and had moved past the one stored)"
        }
    }
}
