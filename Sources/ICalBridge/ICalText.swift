/// Text rules of iCalendar output that graph-ics enforces itself.
enum ICalText {
    /// RFC 5545 §3.1: at most 75 octets per line, excluding the CRLF.
    static let maximumLineOctets = 75

    /// Unfolds libical's output and folds it again at 75 octets, never inside a UTF-8 sequence, with CRLF.
    ///
    /// libical 3.0.16 folds by characters in places, can put a fold between the CR and the LF that end a
    /// property, and leaves a line consisting of one space; unfolding first and folding once makes the
    /// result independent of those quirks.
    static func refold(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(input.count + input.count / 64 + 16)
        var lineLength = 0
        var index = 0
        let count = input.count
        while index < count {
            let byte = input[index]
            if byte == 0x0D || byte == 0x0A {
                // A line break: a fold (CRLF/LF followed by a space or tab) disappears; anything else ends
                // the logical line. A CR directly before a folded CRLF ("\r\r\n ") is libical's misplaced fold.
                var next = index + 1
                if byte == 0x0D, next < count, input[next] == 0x0A { next += 1 }
                if byte == 0x0D, next < count, input[next] == 0x0D, next + 1 < count, input[next + 1] == 0x0A,
                    next + 2 < count, input[next + 2] == 0x20 || input[next + 2] == 0x09
                {
                    index = next + 3
                    continue
                }
                if next < count, input[next] == 0x20 || input[next] == 0x09 {
                    index = next + 1
                    continue
                }
                if lineLength > 0 {
                    output.append(0x0D)
                    output.append(0x0A)
                }
                lineLength = 0
                index = next
                continue
            }
            // Width of this UTF-8 sequence; a stray continuation byte counts as one.
            var width = 1
            if byte >= 0xF0 {
                width = 4
            } else if byte >= 0xE0 {
                width = 3
            } else if byte >= 0xC0 {
                width = 2
            }
            width = min(width, count - index)
            if lineLength + width > maximumLineOctets {
                output.append(0x0D)
                output.append(0x0A)
                output.append(0x20)
                lineLength = 1
            }
            for offset in 0..<width {
                output.append(input[index + offset])
            }
            lineLength += width
            index += width
        }
        if lineLength > 0 {
            output.append(0x0D)
            output.append(0x0A)
        }
        return output
    }

    /// Text as iCalendar TEXT may carry it: line breaks as LF only (libical escapes them as `\n`), other
    /// control characters removed.
    static func sanitized(_ value: String) -> String {
        var needsWork = false
        for scalar in value.unicodeScalars
        where (scalar.value < 0x20 && scalar != "\n" && scalar != "\t") || scalar.value == 0x7F {
            needsWork = true
            break
        }
        guard needsWork else { return value }
        var result = String.UnicodeScalarView()
        var previousWasCR = false
        for scalar in value.unicodeScalars {
            if scalar == "\r" {
                result.append("\n")
                previousWasCR = true
                continue
            }
            defer { previousWasCR = false }
            if scalar == "\n" {
                if !previousWasCR { result.append(scalar) }
            } else if scalar == "\t" || (scalar.value >= 0x20 && scalar.value != 0x7F) {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// `value` escaped as an iCalendar TEXT value (RFC 5545 §3.3.11): backslash, comma, semicolon and
    /// line breaks. graph-ics writes CATEGORIES itself with this, because libical 3.0 escapes neither commas
    /// nor semicolons there, so that one category "Blue, Green" would be read back as two.
    static func escaped(_ value: String) -> String {
        var escaped = ""
        for character in sanitized(value) {
            switch character {
            case "\\": escaped += "\\\\"
            case ",": escaped += "\\,"
            case ";": escaped += "\\;"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// One line of text: line breaks and other control characters become spaces, ends trimmed.
    static func singleLine(_ value: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                result.append(" ")
            } else {
                result.append(scalar)
            }
        }
        return String(result).trimmingSpaces()
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line breaks.
    func trimmingSpaces() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
