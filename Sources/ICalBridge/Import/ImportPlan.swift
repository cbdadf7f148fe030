/// What `import` will do with one `.ics` file: event payloads to create, and what to do after creating
/// them. `convert --to graph-json` prints exactly these payloads.
public struct ImportPlan: Sendable {
    public var events: [PlannedEvent] = []
    public var diagnostics: [Diagnostic] = []
    /// How each TZID of the file was understood (`Europe/Berlin: IANA name`), for `--verbose`.
    public var zoneResolutions: [String: String] = [:]
    /// VEVENTs in the file (each override counted).
    public var sourceEvents = 0

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
/// re-run finds what is there and a retried POST never creates a second copy.
public enum ImportIdentity {
    /// The extended property's id: a string property in graph-ics's own property set.
    public static let propertyID = "String {6a3d0f5e-2c41-4b8e-9d7a-3f1c5e8b2a90} Name graph-ics.source-uid"

    /// The value stored for an event: the UID, and `|RECURRENCE-ID` for one occurrence.
    public static func key(uid: String, recurrenceID: String?) -> String {
        recurrenceID.map { uid + "|" + $0 } ?? uid
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
