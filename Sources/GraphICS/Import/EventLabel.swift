import Foundation
import ICalBridge

/// How the reports of `import`, `import --verify` and `import --undo` name one event of a file: the file's
/// name without its folders (a URL without its query), the subject in quotes and when it starts
/// (`train.ics: "Eurostar 9126" 2027-01-15 07:01`). The UID, often a hundred characters, is shown only when
/// the event has no subject; the `--json` reports carry it always.
public struct EventLabel: Sendable, Equatable {
    public var file: String
    public var uid: String
    public var recurrenceID: String?
    public var subject: String?
    public var when: String?

    public init(file: String, uid: String, recurrenceID: String? = nil, subject: String? = nil, when: String? = nil) {
        self.file = file
        self.uid = uid
        self.recurrenceID = recurrenceID
        self.subject = subject
        self.when = when
    }

    /// `FILE: "SUBJECT" WHEN: OUTCOME`, made printable (one line, no control characters).
    public func line(_ outcome: String) -> String {
        var event: [String] = []
        if let subject, !subject.isEmpty {
            event.append("\"\(PrintableText.quoted(subject))\"")
        } else if !uid.isEmpty {
            event.append("event \(uid)")
        }
        if let when { event.append(when) }
        if let recurrenceID, when == nil { event.append("(RECURRENCE-ID \(recurrenceID))") }
        let name = event.isEmpty ? "" : " " + event.joined(separator: " ") + ":"
        return PrintableText.printable("\(Self.shortName(file)):\(name) \(outcome)")
    }

    /// A file's name without its folders; for a URL, scheme, host and path, its query left out (it may hold
    /// a ticket's secret).
    public static func shortName(_ file: String) -> String {
        if file.hasPrefix("https://") || file.hasPrefix("http://") {
            guard let query = file.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return file }
            return String(file[..<query]) + "?…"
        }
        guard let slash = file.lastIndex(of: "/"), file.index(after: slash) < file.endIndex else { return file }
        return String(file[file.index(after: slash)...])
    }

    /// When an event starts, as the reports show it: `2027-01-22 20:15` in `zone` (the user's), else in the
    /// zone the event is planned in; the date alone for an all-day event; nil without a readable start.
    public static func when(_ event: GraphEvent, in zone: ResolvedZone? = nil) -> String? {
        guard let text = event.start?.dateTime, let start = GraphTimestamp.parse(text) else { return nil }
        if event.isAllDay == true { return start.civil.dateString }
        var local = start.civil
        if let zone {
            var instant = start.instant
            if instant == nil, case .resolved(let own, _) = ZoneResolver.resolve(event.start?.timeZone) {
                instant = own.instant(forLocal: start.civil)
            }
            if let instant { local = zone.localTime(at: instant) }
        }
        return local.dateString + " " + String(local.description.dropFirst(11).prefix(5))
    }
}
