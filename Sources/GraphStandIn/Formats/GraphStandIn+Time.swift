// Stands in for Exchange's time-zone knowledge: which zone names Graph accepts in `start.timeZone`, in
// `Prefer: outlook.timezone` and in mailboxSettings (Windows names, IANA names, "UTC"), and the stamps
// Graph writes (`createdDateTime`, `innerError.date`, `Retry-After`).
import Foundation

extension GraphStandIn {
    /// The zone a Graph time-zone name denotes: "UTC" and `tzone://Microsoft/Utc`, any Windows name of
    /// CLDR's table (case-insensitive), or an IANA name Foundation knows. Nil for anything else, which Graph
    /// answers with `TimeZoneNotSupportedException`.
    static func timeZone(named raw: String) -> TimeZone? {
        let name = raw.trimmingCharacters(in: .whitespaces)
        let lower = name.lowercased()
        if lower == "utc" || lower == "tzone://microsoft/utc" || lower == "etc/utc" || lower == "gmt"
            || lower == "coordinated universal time" || lower == "z"
        {
            return utc
        }
        if let iana = windowsZones[lower] { return TimeZone(identifier: iana) }
        guard !name.isEmpty, name.contains("/") || name.hasPrefix("Etc") else { return nil }
        return TimeZone(identifier: name)
    }

    static let utc = TimeZone(secondsFromGMT: 0) ?? TimeZone.current

    /// Reads a `startDateTime`/`endDateTime` query value: with `Z` or an offset as written, without one as UTC.
    static func instant(fromQuery text: String) -> Date? {
        GraphDateTime(text).map { $0.instant(in: utc) }
    }

    /// `2026-12-01T08:00:00.1234567Z`, the form of `createdDateTime` and `lastModifiedDateTime`.
    static func utcStamp(_ date: Date) -> String {
        GraphDateTime(date, in: utc).graphText + "Z"
    }

    /// `2026-12-01T08:00:00`, the form of `innerError.date`.
    static func innerErrorDate(_ date: Date) -> String {
        String(GraphDateTime(date, in: utc).graphText.prefix(19))
    }

    /// A `Retry-After` value: whole seconds as an integer, otherwise a decimal such as `0.05`.
    static func retryAfterText(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return String(seconds) }
        let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        var text = String(format: "%d.%06d", Int(micros / 1_000_000), Int(micros % 1_000_000))
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "0" ? "0.000001" : text
    }

    /// A duration in seconds, fractions kept.
    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
