import Foundation
import ICalBridge

/// The subjects of the items a pull plan writes, for the report's lines (`pulled new  FILE  SUBJECT`):
/// the first SUMMARY of each file as the pull encoded it (the master's, for a series). The pull reports
/// items by file and UID only; this reads the subject back from the bytes it will write, so that the
/// report needs no second encoder and the pull no new field.
enum PulledSubjects {
    /// File name → subject, for the files of `plan` that have one.
    static func of(_ plan: PullPlan) -> [String: String] {
        var subjects: [String: String] = [:]
        for update in plan.updates {
            if let subject = summary(in: update.contents) { subjects[update.fileName] = subject }
        }
        return subjects
    }

    /// The value of the first SUMMARY content line of an iCalendar text (unfolded, TEXT escapes undone).
    static func summary(in contents: Data) -> String? {
        var summary: String?
        UnfoldedLines.forEach(in: Array(contents)) { bytes in
            guard UnfoldedLines.line(bytes, startsWith: "SUMMARY:") || UnfoldedLines.line(bytes, startsWith: "SUMMARY;")
            else { return true }
            let line = Substring(String(decoding: bytes, as: UTF8.self))
            summary = valueStart(line).map { unescaped(line[$0...]) }
            return summary == nil
        }
        return summary
    }

    /// The index after the colon that ends the name and parameters (colons inside quoted parameter values
    /// do not count).
    private static func valueStart(_ line: Substring) -> Substring.Index? {
        var quoted = false
        for index in line.indices {
            switch line[index] {
            case "\"": quoted.toggle()
            case ":" where !quoted: return line.index(after: index)
            default: continue
            }
        }
        return nil
    }

    /// RFC 5545 §3.3.11 undone: `\n` and `\N` a line break, `\,` `\;` `\\` their characters.
    private static func unescaped(_ value: Substring) -> String {
        var result = ""
        var escaping = false
        for character in value {
            if escaping {
                result.append(character == "n" || character == "N" ? "\n" : character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}
