/// The check a sync makes before it changes anything: a run that would delete more than a fifth of the
/// items, and more than five, on either side is stopped, unless the user allowed it (`--allow-mass-delete`).
///
/// An emptied or unmounted folder, or a wrong `--calendar`, looks to a sync exactly like the user deleting
/// everything; this is what keeps such a run from emptying the other side.
public struct MassDeletionGuard: Sendable, Equatable {
    /// The side a deletion would happen on.
    public enum Side: String, Sendable, Equatable {
        /// Files removed from the local folder (because their events went from Outlook).
        case folder = "the folder"
        /// Events deleted in Outlook (because their files went from the folder).
        case outlook = "Outlook"
    }

    /// A run stopped by the guard: how many deletions on which side, out of how many items.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public var side: Side
        public var deletions: Int
        public var items: Int

        public init(side: Side, deletions: Int, items: Int) {
            self.side = side
            self.deletions = deletions
            self.items = items
        }

        public var description: String {
            "this sync would delete \(deletions) of the \(items) items in \(side.rawValue)"
                + " (more than \(MassDeletionGuard.share.numerator) in \(MassDeletionGuard.share.denominator));"
                + " nothing was changed. If that is what you want, run it again with --allow-mass-delete"
        }
    }

    /// The largest share of the items one run may delete on one side without being allowed to.
    public static let share = (numerator: 1, denominator: 5)
    /// Up to this many deletions always go through, whatever the share (a calendar of eight events may
    /// lose three).
    public static let alwaysAllowed = 5

    /// Whether the user allowed any number of deletions.
    public var allowsMassDeletion: Bool

    public init(allowsMassDeletion: Bool) {
        self.allowsMassDeletion = allowsMassDeletion
    }

    /// Throws a ``Refusal`` for the first side (the folder first) where `deletions` of `items` (the items the
    /// last sync recorded) is more than the guard lets through.
    public func check(items: Int, deletions: [Side: Int]) throws(Refusal) {
        guard !allowsMassDeletion else { return }
        for side in [Side.folder, .outlook] {
            let count = deletions[side] ?? 0
            if Self.isMass(count, of: items) { throw Refusal(side: side, deletions: count, items: items) }
        }
    }

    /// More than ``alwaysAllowed`` and more than ``share`` of `items` (exactly a fifth is still allowed).
    static func isMass(_ deletions: Int, of items: Int) -> Bool {
        deletions > alwaysAllowed && deletions * share.denominator > items * share.numerator
    }
}
