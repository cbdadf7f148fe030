import Foundation
import GraphICS
import ICalBridge

/// `graph-ics import --undo FILE…`: removes what earlier imports of the files created, and nothing else.
extension ImportCommand {
    /// Plans the files as the import would (same calendar, same identities), then deletes the events found
    /// by their source identity; reports each on standard error (and `--json`). A meeting whose deletion
    /// would mail its attendees is refused unless `--as-meeting --yes`.
    func undo(_ readable: [Input], earlierFailures failures: [ImportResult], _ terminal: Terminal) throws
        -> ExitStatus
    {
        if asMeeting && !confirmed && !dryRun {
            terminal.error(
                "--undo --as-meeting deletes meetings and makes Graph mail their attendees a cancellation; nothing"
                    + " was removed. Add --yes to confirm, or leave out --as-meeting to remove only what mails nobody.")
            return .usage
        }
        let session = try Session.open(connection, need: dryRun ? .read : .write, terminal: terminal)
        let userZone = try session.mailboxZone(override: zone, terminal: terminal)
        let calendarID = try CalendarChoice.nonDefaultID(for: calendar, in: session.client)
        let settings = ImportSettings(calendarID: calendarID, onDuplicate: onDuplicate, notifiesAttendees: asMeeting)
        let planned = plan(readable, zone: userZone, settings, terminal, quiet: true)
        for failure in failures + planned.failures { terminal.err(failure.line) }
        Self.noteTimes(in: userZone, terminal)
        let results = try EventImporter(client: session.client, displayZone: userZone).undo(
            planned.items, allowingMail: asMeeting && confirmed, dryRun: dryRun)
        for result in results { terminal.err(result.line) }
        let removed = results.filter { $0.outcome == .removed }.count
        let failed = results.filter { $0.outcome == .failed }.count + failures.count + planned.failures.count
        let absent = results.filter { $0.outcome == .absent }.count
        let verb = dryRun ? "would remove" : "removed"
        terminal.note(
            "\(readable.count) file(s): \(removed) \(verb), \(absent) not in the calendar, \(failed) failed"
                + (dryRun ? "; nothing was changed" : ""))
        if json { try printJSON(["undo": !dryRun, "events": results], terminal) }
        return failed > 0 ? .partlyFailed : .ok
    }

    /// One JSON object on standard output, keys sorted, as every report of `import` prints it.
    func printJSON(_ object: [String: any Encodable], _ terminal: Terminal) throws {
        struct Document: Encodable {
            var fields: [String: any Encodable]
            struct Key: CodingKey {
                var stringValue: String
                var intValue: Int? { nil }
                init(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                for (key, value) in fields { try container.encode(value, forKey: Key(stringValue: key)) }
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(Document(fields: object))
        data.append(0x0A)
        terminal.out(String(decoding: data, as: UTF8.self))
    }
}
