import Foundation
import ICalBridge
import Testing

@testable import GraphICSCommands

/// The fixtures' week (`fixtures/views/week.json`, 2026-W49 of Ana Example's mailbox in Berlin), read as the
/// views read Graph's pages, with Tuesday 1 December 2026 as today.
enum ViewFixture {
    static let file = packageRoot.appendingPathComponent("fixtures/views/week.json")
    static let owner: Set<String> = ["ana@contoso.example", "ana example"]
    static let today = CivilDateTime(year: 2026, month: 12, day: 1)

    static var berlin: ResolvedZone {
        get throws { try #require(ResolvedZone.iana("Europe/Berlin")) }
    }

    static var week: DayRange {
        get throws {
            DayRange(
                first: CivilDateTime(year: 2026, month: 11, day: 30), end: CivilDateTime(year: 2026, month: 12, day: 7),
                zone: try berlin)
        }
    }

    static func entries() throws -> [AgendaEntry] {
        let read = try AgendaEntry.read(try Data(contentsOf: file), file: "week.json")
        #expect(read.diagnostics.isEmpty)
        return read.entries.map { $0.hidingOrganizer(owner) }
    }

    /// The subjects of the fixture's events.
    static func subjects() throws -> [String] {
        try entries().map(\.subject)
    }

    /// An event of `subject` from `start` to `end` (UTC, `2026-12-01T09:00:00`).
    static func timed(_ subject: String, _ start: String, _ end: String) throws -> AgendaEntry {
        let json = """
            {"subject": "\(subject)", "start": {"dateTime": "\(start)", "timeZone": "UTC"},
             "end": {"dateTime": "\(end)", "timeZone": "UTC"}}
            """
        return try #require(try AgendaEntry.read(Data(json.utf8), file: "test").entries.first)
    }
}
