/// The enumeration maps between Graph and iCalendar, written out in both directions so that every lossy
/// case is visible here (evolution-ews's mapping table does the same).
public enum GraphMappings {
    /// `showAs` → (`TRANSP`, `X-MICROSOFT-CDO-BUSYSTATUS`). `unknown` has no busy status.
    public static let showAsToICal: [String: (transp: String, busyStatus: String?)] = [
        "free": ("TRANSPARENT", "FREE"),
        "tentative": ("OPAQUE", "TENTATIVE"),
        "busy": ("OPAQUE", "BUSY"),
        "oof": ("OPAQUE", "OOF"),
        "workingElsewhere": ("OPAQUE", "WORKINGELSEWHERE"),
        "unknown": ("OPAQUE", nil),
    ]

    /// `X-MICROSOFT-CDO-BUSYSTATUS` → `showAs`; without it `TRANSP:TRANSPARENT` is `free`, else `busy`.
    public static let busyStatusToShowAs: [String: String] = [
        "FREE": "free", "TENTATIVE": "tentative", "BUSY": "busy", "OOF": "oof",
        "WORKINGELSEWHERE": "workingElsewhere",
    ]

    /// `sensitivity` → `CLASS`. Lossy: `personal` and `private` both become `PRIVATE`, so graph-ics also
    /// writes `X-GRAPH-ICS-SENSITIVITY:personal` to keep the difference.
    public static let sensitivityToClass: [String: String] = [
        "normal": "PUBLIC", "personal": "PRIVATE", "private": "PRIVATE", "confidential": "CONFIDENTIAL",
    ]

    /// `CLASS` → `sensitivity` (unknown classes are `private`, as RFC 5545 §3.8.1.3 asks).
    public static let classToSensitivity: [String: String] = [
        "PUBLIC": "normal", "PRIVATE": "private", "CONFIDENTIAL": "confidential",
    ]

    /// `importance` → (`PRIORITY`, `X-MICROSOFT-CDO-IMPORTANCE`).
    public static let importanceToICal: [String: (priority: Int, cdo: String)] = [
        "low": (9, "0"), "normal": (5, "1"), "high": (1, "2"),
    ]

    /// `PRIORITY` → `importance`: 1–4 high, 5 (and 0, undefined) normal, 6–9 low.
    public static func importance(fromPriority priority: Int) -> String {
        switch priority {
        case 1...4: return "high"
        case 6...9: return "low"
        default: return "normal"
        }
    }

    /// Attendee `status.response` → `PARTSTAT`.
    public static let responseToPartstat: [String: String] = [
        "none": "NEEDS-ACTION", "notResponded": "NEEDS-ACTION", "organizer": "ACCEPTED",
        "accepted": "ACCEPTED", "tentativelyAccepted": "TENTATIVE", "declined": "DECLINED",
    ]

    /// `PARTSTAT` → attendee `status.response`.
    public static let partstatToResponse: [String: String] = [
        "NEEDS-ACTION": "none", "ACCEPTED": "accepted", "TENTATIVE": "tentativelyAccepted",
        "DECLINED": "declined", "DELEGATED": "none",
    ]

    /// Attendee `type` → (`ROLE`, `CUTYPE`).
    public static let attendeeTypeToICal: [String: (role: String, cutype: String)] = [
        "required": ("REQ-PARTICIPANT", "INDIVIDUAL"),
        "optional": ("OPT-PARTICIPANT", "INDIVIDUAL"),
        "resource": ("NON-PARTICIPANT", "RESOURCE"),
    ]

    /// Graph's `daysOfWeek` values → iCalendar weekday codes, Sunday first.
    public static let weekdays: [(graph: String, ical: String)] = [
        ("sunday", "SU"), ("monday", "MO"), ("tuesday", "TU"), ("wednesday", "WE"), ("thursday", "TH"),
        ("friday", "FR"), ("saturday", "SA"),
    ]

    /// Graph's week `index` → iCalendar's ordinal.
    public static let weekIndex: [String: Int] = ["first": 1, "second": 2, "third": 3, "fourth": 4, "last": -1]
}
