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

    /// `value` escaped as an iCalendar TEXT value (RFC 5545 §3.3.11): backslash, comma, semicolon and
    /// line breaks (CRLF, CR and LF all become `\n`); other control characters except TAB are dropped.
    static func escaped(_ value: String) -> String {
        var bytes: [UInt8] = []
        appendEscaped(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value` escaped as TEXT (see ``escaped(_:)``) to `output`, working on UTF-8 bytes.
    static func appendEscaped(_ value: String, to output: inout [UInt8]) {
        var value = value
        value.withUTF8 { bytes in
            var previousWasCR = false
            var runStart = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                // Plain bytes are copied in runs; only the special ones are handled one by one.
                if byte >= 0x20, byte != 0x5C, byte != 0x2C, byte != 0x3B, byte != 0x7F {
                    previousWasCR = false
                    continue
                }
                if runStart < index {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                }
                runStart = index + 1
                switch byte {
                case 0x5C, 0x2C, 0x3B:
                    output.append(0x5C)
                    output.append(byte)
                case 0x0D:
                    output.append(0x5C)
                    output.append(UInt8(ascii: "n"))
                case 0x0A:
                    if !previousWasCR {
                        output.append(0x5C)
                        output.append(UInt8(ascii: "n"))
                    }
                case 0x09: output.append(byte)
                default: break
                }
                previousWasCR = byte == 0x0D
            }
            if runStart < bytes.count { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
        }
    }

    /// Whether `value` has no control characters (other than TAB when `allowingTab`).
    static func isClean(_ bytes: UnsafeBufferPointer<UInt8>, allowingTab: Bool) -> Bool {
        for byte in bytes where byte < 0x20 || byte == 0x7F {
            if allowingTab, byte == 0x09 { continue }
            return false
        }
        return true
    }

    /// Whether two strings are equal when ASCII letters are compared without case (no allocation).
    static func equalsIgnoringASCIICase(_ text: String, _ other: String) -> Bool {
        guard text.utf8.count == other.utf8.count else { return false }
        for (left, right) in zip(text.utf8, other.utf8) where left != right {
            let lowerLeft = left >= 0x41 && left <= 0x5A ? left + 0x20 : left
            let lowerRight = right >= 0x41 && right <= 0x5A ? right + 0x20 : right
            if lowerLeft != lowerRight { return false }
        }
        return true
    }

    /// Whether `text` contains `part`, compared as UTF-8 bytes.
    static func contains(_ text: String, _ part: String) -> Bool {
        var text = text
        var part = part
        return text.withUTF8 { haystack in
            part.withUTF8 { needle in
                guard let first = needle.first else { return true }
                guard needle.count <= haystack.count else { return false }
                for start in 0...(haystack.count - needle.count) where haystack[start] == first {
                    var offset = 1
                    while offset < needle.count, haystack[start + offset] == needle[offset] { offset += 1 }
                    if offset == needle.count { return true }
                }
                return false
            }
        }
    }

    /// One line of text: line breaks and other control characters become spaces, ends trimmed.
    static func singleLine(_ value: String) -> String {
        var value = value
        if value.withUTF8({ isClean($0, allowingTab: false) }) { return value.trimmingSpaces() }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count)
        for byte in value.utf8 { bytes.append(byte < 0x20 || byte == 0x7F ? 0x20 : byte) }
        return String(decoding: bytes, as: UTF8.self).trimmingSpaces()
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line breaks.
    func trimmingSpaces() -> String {
        // Fast path: nothing to trim when both ends are visible ASCII.
        if let first = utf8.first, let last = utf8.last, first > 0x20, first < 0x7F, last > 0x20, last < 0x7F {
            return self
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
