import Foundation

/// The content lines of an iCalendar text, unfolded (RFC 5545 §3.1: a line break followed by a space or a
/// tab continues the line), read from its bytes; and one line folded again. The sync reads back a few
/// properties of the item files it encodes (their UIDs, the first SUMMARY) this way: going through `String`
/// searches took a tenth of a 10,000-item first sync. The CalDAV gateway reads the lines a client sent.
public enum UnfoldedLines {
    /// Calls `body` with each unfolded line, without its line break, until `body` returns false.
    public static func forEach(in bytes: [UInt8], _ body: ([UInt8]) -> Bool) {
        var line: [UInt8] = []
        var started = false
        var index = 0
        while index < bytes.count {
            var end = index
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
            let contentEnd = end > index && bytes[end - 1] == UInt8(ascii: "\r") ? end - 1 : end
            if started, index < contentEnd, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
                line.append(contentsOf: bytes[(index + 1)..<contentEnd])
            } else {
                if started, !body(line) { return }
                line = Array(bytes[index..<contentEnd])
                started = true
            }
            index = end + 1
        }
        if started { _ = body(line) }
    }

    /// Whether `line` starts with `prefix` (ASCII).
    public static func line(_ line: [UInt8], startsWith prefix: String) -> Bool {
        line.starts(with: prefix.utf8)
    }

    /// The unfolded lines of `data` (CRLF or LF line ends), empty lines left out.
    public static func strings(in data: Data) -> [String] {
        var lines: [String] = []
        forEach(in: Array(data)) { line in
            if !line.isEmpty { lines.append(String(decoding: line, as: UTF8.self)) }
            return true
        }
        return lines
    }

    /// `line` as a content line of the output: folded at 75 octets without splitting a UTF-8 sequence, with
    /// CRLF (as every line graph-ics writes).
    public static func folded(_ line: String) -> String {
        var lines = ContentLines(capacity: line.utf8.count + line.utf8.count / 64 + 8)
        lines.raw(line)
        return String(decoding: lines.bytes, as: UTF8.self)
    }
}
