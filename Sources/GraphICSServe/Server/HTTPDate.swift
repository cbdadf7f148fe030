import Foundation

/// HTTP's dates (RFC 9110 §5.6.7): `Last-Modified` is written as an IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`); `If-Modified-Since` is read in any of the three forms a client may
/// send (IMF-fixdate, RFC 850, asctime). Whole seconds: an HTTP-date has no fractions.
public enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `date` as an IMF-fixdate, rounded down to the second.
    public static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = days[Int(parts.tm_wday)]
        let month = months[Int(parts.tm_mon)]
        return "\(day), \(two(parts.tm_mday)) \(month) \(1900 + parts.tm_year) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// The date in `text` (any of the three forms), or nil when it is none of them: an invalid
    /// `If-Modified-Since` is ignored, as RFC 9110 §13.1.3 says.
    public static func parse(_ text: String) -> Date? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        var parts: (day: String, month: String, year: String, time: String)
        switch words.count {
        case 6 where words[5] == "GMT" && words[0].hasSuffix(","):  // Sun, 06 Nov 1994 08:49:37 GMT
            parts = (words[1], words[2], words[3], words[4])
        case 4 where words[3] == "GMT" && words[0].hasSuffix(","):  // Sunday, 06-Nov-94 08:49:37 GMT
            let date = words[1].split(separator: "-").map(String.init)
            guard date.count == 3, let short = Int(date[2]), date[2].count == 2 else { return nil }
            // RFC 9110: a two-digit year more than 50 years in the future is in the past century.
            parts = (date[0], date[1], String(short < 70 ? 2000 + short : 1900 + short), words[2])
        case 5:  // Sun Nov  6 08:49:37 1994
            parts = (words[2], words[1], words[4], words[3])
        default:
            return nil
        }
        return date(parts)
    }

    private static func date(_ parts: (day: String, month: String, year: String, time: String)) -> Date? {
        let clock = parts.time.split(separator: ":").compactMap { Int($0) }
        guard let month = months.firstIndex(of: parts.month), let day = Int(parts.day), let year = Int(parts.year),
            clock.count == 3, (1...31).contains(day), (0...23).contains(clock[0]), (0...59).contains(clock[1]),
            (0...60).contains(clock[2])
        else { return nil }
        var fields = tm()
        fields.tm_year = Int32(year - 1900)
        fields.tm_mon = Int32(month)
        fields.tm_mday = Int32(day)
        fields.tm_hour = Int32(clock[0])
        fields.tm_min = Int32(clock[1])
        fields.tm_sec = Int32(clock[2])
        return Date(timeIntervalSince1970: TimeInterval(timegm(&fields)))
    }
}
