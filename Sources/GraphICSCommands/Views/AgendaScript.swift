import Foundation
import ICalBridge

/// The agenda for scripts: `--tsv` (a header, then one tab-separated line per event) and `--format TEMPLATE`
/// (one line per event from `{field}` and `{start:%H:%M}` placeholders). Both list each event once, in start
/// order, with local times of the display zone; control characters and tabs in values become spaces.
enum AgendaScript {
    static let tsvColumns = [
        "start_date", "start_time", "end_date", "end_time", "subject", "location", "organizer", "calendar",
        "show_as", "response", "id",
    ]

    /// `--tsv`: the header and a line per event; an all-day event has empty times and its exclusive end date.
    static func tsv(_ entries: [AgendaEntry], zone: ResolvedZone) -> String {
        var lines = [tsvColumns.joined(separator: "\t")]
        for entry in sorted(entries, zone) {
            let (start, end) = local(entry, zone)
            let timed = !isAllDay(entry)
            let fields = [
                start.dateString, timed ? ViewText.time(start) : "", end.dateString, timed ? ViewText.time(end) : "",
                entry.subject, entry.location ?? "", entry.organizer ?? "", entry.calendar ?? "", entry.showAs ?? "",
                entry.response ?? "", entry.id ?? "",
            ]
            lines.append(fields.map(flat).joined(separator: "\t"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `--format`: the template filled in per event, a line each.
    static func format(_ entries: [AgendaEntry], template: Template, zone: ResolvedZone) -> String {
        sorted(entries, zone).map { template.fill($0, zone: zone) + "\n" }.joined()
    }

    /// A `--format` template, read once: literal text, `{field}`, `{start:SPEC}` / `{end:SPEC}` with
    /// strftime's %Y %m %d %H %M %S %a %A %b %B %e %%, and `{{` `}}` for braces.
    struct Template: Equatable {
        enum Part: Equatable {
            case text(String)
            case field(String, spec: String?)
        }

        static let fields = [
            "start", "end", "subject", "location", "organizer", "calendar", "categories", "showAs", "response",
            "joinUrl", "id", "allDay",
        ]

        var parts: [Part]

        init(_ template: String) throws(UsageError) {
            parts = []
            var text = ""
            var rest = Substring(template)
            while let character = rest.first {
                rest = rest.dropFirst()
                if character == "{" && rest.first == "{" || character == "}" && rest.first == "}" {
                    text.append(character)
                    rest = rest.dropFirst()
                } else if character == "{" {
                    guard let close = rest.firstIndex(of: "}") else {
                        throw UsageError("--format '\(template)' has a '{' without its '}' (write '{{' for a brace)")
                    }
                    let inside = rest[..<close]
                    rest = rest[rest.index(after: close)...]
                    let name = String(inside.prefix { $0 != ":" })
                    let spec = inside.firstIndex(of: ":").map { String(inside[inside.index(after: $0)...]) }
                    guard Self.fields.contains(name), spec == nil || name == "start" || name == "end" else {
                        throw UsageError(
                            "--format: '{\(inside)}' is not a field; the fields are "
                                + Self.fields.map { "{\($0)}" }.joined(separator: ", ")
                                + ", and {start:%H:%M}, {end:%Y-%m-%d} for times")
                    }
                    if !text.isEmpty { parts.append(.text(text)) }
                    text = ""
                    parts.append(.field(name, spec: spec))
                } else if character == "}" {
                    throw UsageError("--format '\(template)' has a '}' without its '{' (write '}}' for a brace)")
                } else {
                    text.append(character)
                }
            }
            if !text.isEmpty { parts.append(.text(text)) }
        }

        func fill(_ entry: AgendaEntry, zone: ResolvedZone) -> String {
            parts.map { part in
                switch part {
                case .text(let text): return text
                case .field(let name, let spec): return value(name, spec: spec, entry, zone)
                }
            }.joined()
        }

        private func value(_ name: String, spec: String?, _ entry: AgendaEntry, _ zone: ResolvedZone) -> String {
            let (start, end) = local(entry, zone)
            let allDay = isAllDay(entry)
            switch name {
            case "start", "end":
                let time = name == "start" ? start : end
                if let spec { return strftime(spec, time) }
                return allDay ? time.dateString : time.dateString + " " + ViewText.time(time)
            case "subject": return flat(entry.subject)
            case "location": return flat(entry.location ?? "")
            case "organizer": return flat(entry.organizer ?? "")
            case "calendar": return flat(entry.calendar ?? "")
            case "categories": return flat(entry.categories.joined(separator: ", "))
            case "showAs": return flat(entry.showAs ?? "")
            case "response": return flat(entry.response ?? "")
            case "joinUrl": return flat(entry.joinURL ?? "")
            case "id": return flat(entry.id ?? "")
            default: return allDay ? "yes" : "no"
            }
        }
    }

    /// strftime's common conversions over a wall-clock time; an unknown one is left as written.
    static func strftime(_ spec: String, _ time: CivilDateTime) -> String {
        var result = ""
        var percent = false
        for character in spec {
            guard percent else {
                if character == "%" { percent = true } else { result.append(character) }
                continue
            }
            percent = false
            switch character {
            case "Y": result += String(time.year)
            case "m": result += ViewText.pad(time.month)
            case "d": result += ViewText.pad(time.day)
            case "e": result += time.day < 10 ? " \(time.day)" : String(time.day)
            case "H": result += ViewText.pad(time.hour)
            case "M": result += ViewText.pad(time.minute)
            case "S": result += ViewText.pad(time.second)
            case "a": result += String(ViewText.weekdays[time.isoWeekday - 1].prefix(3))
            case "A": result += ViewText.weekdays[time.isoWeekday - 1]
            case "b": result += String(ViewText.months[time.month - 1].prefix(3))
            case "B": result += ViewText.months[time.month - 1]
            case "%": result += "%"
            default: result += "%" + String(character)
            }
        }
        return percent ? result + "%" : result
    }

    static func sorted(_ entries: [AgendaEntry], _ zone: ResolvedZone) -> [AgendaEntry] {
        entries.sorted { $0.sortKey(in: zone) < $1.sortKey(in: zone) }
    }

    static func isAllDay(_ entry: AgendaEntry) -> Bool {
        if case .allDay = entry.span { return true }
        return false
    }

    /// Start and end as wall-clock times of `zone` (an all-day event's dates at midnight, the end exclusive).
    static func local(_ entry: AgendaEntry, _ zone: ResolvedZone) -> (CivilDateTime, CivilDateTime) {
        switch entry.span {
        case .timed(let start, let end): return (zone.localTime(at: start), zone.localTime(at: end))
        case .allDay(let first, let end): return (first, end)
        }
    }

    /// A value on one line of one field: tabs and control characters as spaces.
    static func flat(_ text: String) -> String {
        ViewText.clean(text)
    }
}
