import Foundation

/// Text from files and servers made safe for a terminal and for one-line messages: graph-ics's one
/// sanitiser. Subjects, UIDs and messages can hold line breaks and control characters (an ESC sequence
/// would recolour, clear or retitle the terminal); these functions are the only way such text reaches
/// standard error.
public enum PrintableText {
    /// `text` with each line break (CR, LF, CRLF, NEL, U+2028/9) replaced by `lineBreaks` and every other
    /// control character (C0 but tab, DEL, C1) by U+FFFD. Scalars are compared, not Characters: Swift
    /// counts CRLF as one Character, which neither "\r" nor "\n" equals.
    public static func printable(_ text: String, lineBreaks: String = " ") -> String {
        // Printable ASCII and tabs, most text by far, is returned as it is without looking at scalars.
        if text.utf8.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 }) { return text }
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.value >= 0x2028 })
        else { return text }
        var result = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            defer { previous = scalar }
            switch scalar {
            case "\t":
                result.append(scalar)
            case "\n" where previous == "\r":
                continue
            case "\r", "\n", "\u{85}", "\u{2028}", "\u{2029}":
                result.append(contentsOf: lineBreaks.unicodeScalars)
            default:
                if scalar.properties.generalCategory == .control {
                    result.append("\u{FFFD}")
                } else {
                    result.append(scalar)
                }
            }
        }
        return String(result)
    }

    /// ``printable(_:lineBreaks:)`` on one line; longer than `limit` characters, cut to `limit - 3` and an
    /// ellipsis: a subject quoted in a message.
    public static func quoted(_ text: String, limit: Int = 60) -> String {
        let flat = printable(text)
        return flat.count > limit ? String(flat.prefix(limit - 3)) + "…" : flat
    }
}
