import Foundation

/// What `import` will do with one `.ics` file: event payloads to create, and what to do after creating
/// them. The payloads are final: `import` sends them as they are, and `import --dry-run` and
/// `convert --to graph-json` print exactly them.
public struct ImportPlan: Sendable {
    public var events: [PlannedEvent] = []
    public var diagnostics: [Diagnostic] = []
    /// How each TZID of the file was understood (`Europe/Berlin: IANA name`), for `--verbose`.
    public var zoneResolutions: [String: String] = [:]
    /// VEVENTs in the file (each override counted).
    public var sourceEvents = 0
    /// Whether some time had neither TZID nor `Z` (floating) and was read in ``ImportOptions/userZone``.
    public var readsFloatingTimes = false

    public init() {}
}

/// One event to create in Graph.
public struct PlannedEvent: Sendable {
    /// The payload for `POST /me/events`.
    public var payload: GraphEvent
    /// The source UID and, for an occurrence, its RECURRENCE-ID (as `20261201T090000Z` or a date).
    public var sourceUID: String
    public var recurrenceID: String?
    /// SEQUENCE and DTSTAMP of the source, for `--on-duplicate update`.
    public var sequence: Int?
    public var timestamp: String?
    /// The calendar's METHOD (`PUBLISH`, `REQUEST`, `CANCEL`, `REPLY`).
    public var method: String?
    /// STATUS:CANCELLED in the source.
    public var isCancelled: Bool
    /// Steps after the series is created.
    public var followUps: [FollowUp]
    /// The settings the event is planned for: its transactionId and its attendees depend on them, and it is
    /// imported only with them.
    public let settings: ImportSettings

    /// The payload that changes an event imported before (`PATCH`): the payload without its transactionId,
    /// which only a create carries.
    public var updatePayload: GraphEvent {
        var payload = payload
        payload.transactionId = nil
        return payload
    }
}

/// A step after creating a series.
public enum FollowUp: Sendable, Equatable {
    /// Delete the occurrence that starts at `originalStart` (an EXDATE); UTC `2026-12-01T09:00:00Z` or an
    /// all-day date `2026-12-01`.
    case cancelOccurrence(originalStart: String)
    /// Change the occurrence that starts at `originalStart` (a RECURRENCE-ID override) to `changes`.
    case patchOccurrence(originalStart: String, changes: GraphEvent)
}

/// Identity of imported events: graph-ics stores the source UID (+ RECURRENCE-ID) of every event it
/// creates in a single-value extended property, and derives the `transactionId` from it, so that a
/// re-run finds what is there and a retried POST never creates a second copy. ``identify(_:)`` is the
/// one place that writes them.
public enum ImportIdentity {
    /// The extended property's id: a string property in graph-ics's own property set.
    public static let propertyID = "String {6a3d0f5e-2c41-4b8e-9d7a-3f1c5e8b2a90} Name graph-ics.source-uid"

    /// The value stored for an event: the UID, and `|RECURRENCE-ID` for one occurrence.
    public static func key(uid: String, recurrenceID: String?) -> String {
        recurrenceID.map { uid + "|" + $0 } ?? uid
    }

    /// The identity an event carries (``key(uid:recurrenceID:)``), when graph-ics imported or planned it.
    public static func key(of event: GraphEvent) -> String? {
        event.singleValueExtendedProperties?.first { $0.id?.lowercased() == propertyID.lowercased() }?.value
    }

    /// Writes the identity of `event` into its payload: the identity property (``key(uid:recurrenceID:)``),
    /// the version property (``version(sequence:timestamp:)``), the calendar property
    /// (``calendarValue(_:)``), and the transactionId of the key, mixed with the calendar's id when one is
    /// chosen and made unique for `--on-duplicate new` (``PlannedEvent/settings``).
    static func identify(_ event: inout PlannedEvent) {
        let key = key(uid: event.sourceUID, recurrenceID: event.recurrenceID)
        event.payload.singleValueExtendedProperties = [
            GraphSingleValueExtendedProperty(id: propertyID, value: key),
            GraphSingleValueExtendedProperty(
                id: versionPropertyID, value: version(sequence: event.sequence, timestamp: event.timestamp)),
            GraphSingleValueExtendedProperty(id: calendarPropertyID, value: calendarValue(event.settings.calendarID)),
        ]
        switch (event.settings.onDuplicate, event.settings.calendarID) {
        case (.new, _):
            event.payload.transactionId = transactionID(for: key + "\n" + UUID().uuidString)
        case (_, let calendarID?):
            event.payload.transactionId = transactionID(for: key + "\n" + calendarID)
        case (_, nil):
            event.payload.transactionId = transactionID(for: key)
        }
    }

    /// The transactionId of a create that Graph refused because the planned one was used before for another
    /// body (`ErrorDuplicateTransactionId`: the event was imported from an earlier version of the file, then
    /// deleted): the planned transactionId mixed with the event's version (``version(sequence:timestamp:)``),
    /// so that a retry of this create still returns the event it makes.
    public static func versionedTransactionID(for event: PlannedEvent) -> String {
        let planned = event.payload.transactionId ?? key(uid: event.sourceUID, recurrenceID: event.recurrenceID)
        return transactionID(for: planned + "\n" + version(sequence: event.sequence, timestamp: event.timestamp))
    }

    /// A stable transactionId for the key: `graph-ics-` and 32 hex digits (two FNV-1a hashes).
    public static func transactionID(for key: String) -> String {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in key.utf8 {
            first = (first ^ UInt64(byte)) &* 0x0100_0000_01b3
            second = (second &+ UInt64(byte)) &* 0x0000_0100_0000_01b3 ^ (second >> 29)
        }
        return "graph-ics-" + hex(first) + hex(second)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

extension ImportIdentity {
    /// The id of a second single-value extended property graph-ics writes on every event it imports: the
    /// version of the source it came from (see ``version(sequence:timestamp:)``), so that
    /// `import --on-duplicate update` can tell whether a file is newer than what it imported before.
    public static let versionPropertyID =
        "String {6a3d0f5e-2c41-4b8e-9d7a-3f1c5e8b2a90} Name graph-ics.source-version"

    /// The id of a third single-value extended property graph-ics writes on every event it imports: the
    /// calendar it was imported into (``calendarValue(_:)``). Graph finds events by an extended property in
    /// the whole mailbox (`api/singlevaluelegacyextendedproperty-get.md` documents the `$filter` on
    /// `/me/events` only), so the import compares this property to tell an event of another calendar.
    public static let calendarPropertyID = "String {6a3d0f5e-2c41-4b8e-9d7a-3f1c5e8b2a90} Name graph-ics.calendar"

    /// The value of the calendar property: the calendar's id, or `default` for the mailbox's default calendar.
    public static func calendarValue(_ calendarID: String?) -> String {
        calendarID ?? "default"
    }

    /// The stored version of a source event: its SEQUENCE (0 when absent) and its DTSTAMP in UTC
    /// (`20261201T090000Z`, empty when absent), as `SEQUENCE;DTSTAMP` (`2;20261201T090000Z`).
    public static func version(sequence: Int?, timestamp: String?) -> String {
        "\(sequence ?? 0);" + (timestamp.map(normalisedStamp) ?? "")
    }

    /// Whether a source with `sequence` and `timestamp` is newer than the stored version `stored`: a higher
    /// SEQUENCE, or the same SEQUENCE and a later DTSTAMP (RFC 5546's rule for updates). An unreadable or
    /// missing stored version counts as older, so that an event imported before graph-ics kept versions
    /// can be updated.
    public static func isNewer(sequence: Int?, timestamp: String?, than stored: String?) -> Bool {
        guard let stored else { return true }
        let parts = stored.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, let storedSequence = Int(first) else { return true }
        let storedStamp = parts.count > 1 ? String(parts[1]) : ""
        let fileSequence = sequence ?? 0
        if fileSequence != storedSequence { return fileSequence > storedSequence }
        let fileStamp = timestamp.map(normalisedStamp) ?? ""
        return fileStamp > storedStamp
    }

    /// `20261201T090000Z` from the forms DTSTAMP takes (`20261201T090000Z`, lower-case, with spaces).
    private static func normalisedStamp(_ text: String) -> String {
        // Nearly always already in the form: digits, `T` and `Z`.
        if text.utf8.allSatisfy({ (0x30...0x39).contains($0) || $0 == UInt8(ascii: "T") || $0 == UInt8(ascii: "Z") }) {
            return text
        }
        return text.trimmingCharacters(in: .whitespaces).uppercased()
    }
}

extension PlannedEvent {
    /// An override of this series that Graph refused to apply to its occurrence (moved onto or past the day
    /// of a neighbour: `ErrorOccurrenceCrossingBoundary`, `api/event-update.md`), as a single event of its
    /// own: the override's payload (`changes`), with the series' source UID and the RECURRENCE-ID of the
    /// occurrence (`originalStart`, `2027-01-19T18:00:00Z` or a date), identified like every imported event so
    /// that a retry creates it once.
    ///
    /// `seriesID` (the series' Graph id, known once it is created) goes into its transactionId
    /// (``ImportIdentity/movedTransactionID(seriesID:originalStart:)``), which Graph returns in every read, so
    /// that the export, sync's pull and the gateway write it back inside its series as an override. Without
    /// it (only the identity key is wanted) the transactionId is the key's.
    public func movedOccurrence(originalStart: String, changes: GraphEvent, seriesID: String? = nil)
        -> PlannedEvent
    {
        var payload = changes
        payload.recurrence = nil
        var moved = PlannedEvent(
            payload: payload, sourceUID: sourceUID,
            recurrenceID: originalStart.filter { $0 != "-" && $0 != ":" }, sequence: sequence,
            timestamp: timestamp, method: method, isCancelled: false, followUps: [], settings: settings)
        ImportIdentity.identify(&moved)
        if let seriesID {
            moved.payload.transactionId = ImportIdentity.movedTransactionID(
                seriesID: seriesID, originalStart: originalStart)
        }
        return moved
    }

    /// The identity keys (``ImportIdentity/key(uid:recurrenceID:)``) of the overrides of this series, had Graph
    /// refused them and the import made them events of their own (``movedOccurrence(originalStart:changes:)``),
    /// with the follow-up each comes from: what `--verify` and `--undo` look for besides the series.
    public var movedOccurrenceKeys: [(originalStart: String, changes: GraphEvent, key: String)] {
        followUps.compactMap { step in
            guard case .patchOccurrence(let originalStart, let changes) = step else { return nil }
            let moved = movedOccurrence(originalStart: originalStart, changes: changes)
            return (originalStart, changes, ImportIdentity.key(uid: moved.sourceUID, recurrenceID: moved.recurrenceID))
        }
    }
}

extension ImportIdentity {
    /// How a single event the import made of an override Graph refused in its series
    /// (``PlannedEvent/movedOccurrence(originalStart:changes:seriesID:)``) names its series:
    /// `graph-ics-moved|<original start>|<series' Graph id>`, the original start as the follow-up names it
    /// (`2026-12-01T08:00:00Z`, or a date `2026-12-01`). Graph returns a transactionId a client set in every
    /// read (`resources/event.md`), delta rounds included, where the extended properties need an `$expand`
    /// that delta does not take; the identity property still holds the source UID and RECURRENCE-ID for the
    /// import's own look-ups.
    /// How every moved occurrence's transactionId begins: a reader can look for it in raw JSON first.
    public static let movedPrefix = "graph-ics-moved|"

    /// The transactionId of the event holding the occurrence of series `seriesID` originally at
    /// `originalStart`, moved past a neighbour: the same for a retry, so that Graph creates it once.
    public static func movedTransactionID(seriesID: String, originalStart: String) -> String {
        movedPrefix + originalStart + "|" + seriesID
    }

    /// The series (its Graph id) and the original start of the occurrence whose move `event` holds, read
    /// from its transactionId; nil for every other event. `originalStart` is an instant in seconds since
    /// 1970: midnight UTC of the day for an all-day occurrence.
    public static func movedOccurrence(of event: GraphEvent) -> (seriesID: String, originalStart: Int64)? {
        movedOccurrence(transactionID: event.transactionId, type: event.type)
    }

    /// ``movedOccurrence(of:)`` from an event's `transactionId` and `type` as Graph's JSON has them.
    public static func movedOccurrence(transactionID: String?, type: String?) -> (
        seriesID: String, originalStart: Int64
    )? {
        guard type == nil || type == "singleInstance", let text = transactionID, text.hasPrefix(movedPrefix)
        else { return nil }
        let parts = text.dropFirst(movedPrefix.count).split(separator: "|", maxSplits: 1)
        guard parts.count == 2, let stamp = GraphTimestamp.parse(String(parts[0])) else { return nil }
        return (String(parts[1]), stamp.instant ?? stamp.civil.secondsSinceEpoch)
    }
}
