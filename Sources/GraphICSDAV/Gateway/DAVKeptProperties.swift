import Foundation
import ICalBridge

/// What a client PUT that Graph cannot hold, kept per resource and served back inside the same VEVENT:
/// X- properties (`X-MOZ-LASTACK`, `X-MOZ-SNOOZE-TIME`, `X-APPLE-*`, any other) except the ones graph-ics's
/// own export writes, the RFC 5545 properties an Outlook event has no field for (RELATED-TO, URL, GEO,
/// CONTACT, COMMENT, RESOURCES), and the VALARMs after the first (Graph holds one reminder). Without them Thunderbird
/// fires a dismissed alarm again, and Apple Calendar loses its travel time.
///
/// Keyed by the VEVENT: "" for the master (or the single event), else the RECURRENCE-ID's value.
struct DAVKeptProperties: Sendable, Equatable, Codable {
    /// Unfolded content lines (a kept VALARM as its BEGIN…END lines), per VEVENT.
    var lines: [String: [String]] = [:]

    var isEmpty: Bool { lines.values.allSatisfy(\.isEmpty) }

    /// X- properties the export writes itself: never kept from a client (they come back from Graph).
    static let exportsOwn = ["X-MICROSOFT-", "X-GRAPH-ICS-", "X-ALT-DESC"]

    /// RFC 5545 properties of a VEVENT that no Graph event field holds (the export writes none of them).
    static let graphHoldsNot: Set<String> = ["RELATED-TO", "URL", "GEO", "CONTACT", "COMMENT", "RESOURCES"]

    /// Whether a content line of a VEVENT is one to keep.
    static func isKept(_ upper: String) -> Bool {
        if upper.hasPrefix("X-") { return !exportsOwn.contains { upper.hasPrefix($0) } }
        let name = upper.prefix { $0 != ":" && $0 != ";" }
        return graphHoldsNot.contains(String(name))
    }

    /// The kept properties of an iCalendar text a client sent.
    init(from text: Data) {
        var current: String?
        var currentLines: [String] = []
        var depth: [String] = []
        var alarms = 0
        var alarmLines: [String] = []
        for line in UnfoldedLines.strings(in: text) {
            let upper = line.uppercased()
            if upper.hasPrefix("BEGIN:") {
                let name = String(upper.dropFirst(6))
                depth.append(name)
                if name == "VEVENT", depth.count == 2 {
                    current = ""
                    currentLines = []
                    alarms = 0
                } else if name == "VALARM", current != nil, depth.count == 3 {
                    alarms += 1
                    alarmLines = alarms > 1 ? [line] : []
                } else if !alarmLines.isEmpty {
                    alarmLines.append(line)
                }
                continue
            }
            if upper.hasPrefix("END:") {
                let name = depth.popLast()
                if name == "VEVENT", depth.count == 1, let key = current {
                    if !currentLines.isEmpty { lines[key, default: []] += currentLines }
                    current = nil
                } else if name == "VALARM", depth.count == 2, !alarmLines.isEmpty {
                    alarmLines.append(line)
                    currentLines += alarmLines
                    alarmLines = []
                } else if !alarmLines.isEmpty {
                    alarmLines.append(line)
                }
                continue
            }
            guard current != nil else { continue }
            if !alarmLines.isEmpty {
                alarmLines.append(line)
                continue
            }
            guard depth.count == 2 else { continue }
            if upper.hasPrefix("RECURRENCE-ID") {
                current = Self.value(of: line)
            } else if Self.isKept(upper) {
                currentLines.append(line)
            }
        }
    }

    init() {}

    /// `body` (as sync's pull renders the item) with the kept lines put back at the end of their VEVENTs,
    /// folded at 75 octets.
    func applied(to body: Data) -> Data {
        guard !isEmpty else { return body }
        var output = ""
        var key = ""
        var depth = 0
        var inEvent = false
        for line in UnfoldedLines.strings(in: body) {
            let upper = line.uppercased()
            if upper.hasPrefix("BEGIN:") {
                depth += 1
                if upper == "BEGIN:VEVENT" {
                    inEvent = true
                    key = ""
                }
            } else if upper.hasPrefix("END:") {
                if upper == "END:VEVENT", inEvent {
                    for kept in lines[key] ?? [] { output += UnfoldedLines.folded(kept) }
                    inEvent = false
                }
                depth -= 1
            } else if inEvent, upper.hasPrefix("RECURRENCE-ID") {
                key = Self.value(of: line)
            }
            output += UnfoldedLines.folded(line)
        }
        return Data(output.utf8)
    }

    /// The value of a content line (after the first colon outside a quoted parameter).
    static func value(of line: String) -> String {
        var quoted = false
        for index in line.indices {
            let character = line[index]
            if character == "\"" { quoted.toggle() }
            if character == ":", !quoted { return String(line[line.index(after: index)...]) }
        }
        return ""
    }
}
