import Foundation
import GraphICSMirror
import ICalBridge

/// How one `graph-ics sync` runs: the window, the directions, what wins a conflict, and the safety
/// switches the user gave.
public struct SyncOptions: Sendable {
    /// Which way changes travel.
    public enum Direction: String, Sendable, Equatable {
        /// Graph's changes into the folder and the folder's into Graph.
        case both
        /// `--pull-only`: the folder follows Graph; local changes stay where they are, unsent.
        case pullOnly = "pull-only"
        /// `--push-only`: Graph follows the folder; Graph's changes are not read.
        case pushOnly = "push-only"

        var pulls: Bool { self != .pushOnly }
        var pushes: Bool { self != .pullOnly }
    }

    /// What wins when an item changed on both sides since the last sync (`--conflict`).
    public enum ConflictPolicy: String, CaseIterable, Sendable, Equatable {
        /// Ask per conflict on a terminal; elsewhere change neither side and report it.
        case ask
        /// Outlook's version wins; the local file's text is kept under the state folder.
        case graph
        /// The local file wins; Outlook's version's text is kept under the state folder.
        case local
    }

    /// Graph's id of the calendar; nil for the mailbox's default (primary) calendar, whose changes are read
    /// through `calendarView/delta`.
    public var calendarID: String?
    /// The span of time the folder mirrors (instants, UTC).
    public var window: SyncWindow
    public var direction: Direction = .both
    public var conflicts: ConflictPolicy = .ask
    /// `--allow-mass-delete`: lets a run delete more than ``MassDeletionGuard`` allows.
    public var allowsMassDeletion = false
    /// `--dry-run`: plan, report, change nothing on either side.
    public var dryRun = false
    /// `--as-meeting --yes`: changes Graph would mail attendees about are sent.
    public var notifiesAttendees = false
    /// The zone for events whose zone Graph does not know (pull) and for floating times (push); UTC when nil.
    public var zone: ResolvedZone?
    /// `--reset`: forget what earlier syncs recorded for the pairing first (refused unless the folder holds no
    /// item file, so that nothing is sent to Graph twice).
    public var startsOver = false
    /// How long a run waits for another sync of the same folder to finish.
    public var lockTimeout: Duration = .seconds(5)
    /// `--discard FILE`: item files whose local changes are given up for Outlook's version (read again from
    /// Graph, the file's text kept in the conflicts folder first).
    public var discarding: Set<String> = []

    public init(window: SyncWindow) {
        self.window = window
    }

    /// The window from `past` days before `now` to `future` days after it, in whole UTC days (midnight
    /// of the first day to midnight after the last), so that runs of one day ask for one window.
    public static func window(past: Int, future: Int, now: Date = Date()) -> SyncWindow {
        let day: Int64 = 86_400
        let today = Int64(now.timeIntervalSince1970.rounded(.down)).floorDivided(by: day) * day
        return SyncWindow(start: today - Int64(past) * day, end: today + (Int64(future) + 1) * day)
    }
}

extension Int64 {
    /// The quotient rounded towards minus infinity (days before 1970 included).
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }
}
