import Foundation
import GraphICS
import GraphStandIn

@testable import GraphICSSync
@testable import ICalBridge

/// The pull's fixture (the stand-in, a client, a fresh folder and state, December 2026) with a push for it,
/// and `.ics` files written the way another tool (khal) writes them: straight to the folder.
final class PushFixture {
    let base: PullFixture
    var standIn: GraphStandIn { base.standIn }
    var folder: VdirFolder { base.folder }
    var state: SyncState { base.state }
    var pairing: SyncPairing { base.pairing }

    init() throws {
        base = try PullFixture()
    }

    func push(notifiesAttendees: Bool = false) -> SyncPush {
        SyncPush(
            client: base.client, state: state, pairing: pairing, folder: folder,
            settings: PushSettings(notifiesAttendees: notifiesAttendees))
    }

    /// Plans and applies a push.
    @discardableResult
    func sync(notifiesAttendees: Bool = false) throws -> PushReport {
        let push = push(notifiesAttendees: notifiesAttendees)
        return try push.apply(push.plan())
    }

    /// Writes `text` (lines joined with CRLF) to the item `name` directly, as another tool would, with a
    /// modification time a second later than any before it (so a scan sees the change whatever the clock's
    /// resolution).
    func write(_ name: String, _ lines: [String]) throws {
        let path = folder.path + "/" + name
        try Data((lines.joined(separator: "\r\n") + "\r\n").utf8).write(to: URL(fileURLWithPath: path))
        clock += 1
        var times = [
            timespec(tv_sec: clock, tv_nsec: 0), timespec(tv_sec: clock, tv_nsec: 0),
        ]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    private var clock = Int(Date().timeIntervalSince1970)

    /// A VCALENDAR around `event`'s lines.
    static func calendar(_ events: [String]...) -> [String] {
        ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//pimutils//khal//EN"]
            + events.flatMap { ["BEGIN:VEVENT"] + $0 + ["END:VEVENT"] } + ["END:VCALENDAR"]
    }

    /// A single event `uid` on 5 December 2026, 14:00–15:00 UTC.
    static func single(_ uid: String, summary: String, extra: [String] = []) -> [String] {
        calendar(
            [
                "UID:\(uid)", "DTSTAMP:20261120T100000Z", "DTSTART:20261205T140000Z", "DTEND:20261205T150000Z",
                "SUMMARY:\(summary)",
            ] + extra)
    }

    /// Replaces the first line of the item `name` that starts with `prefix` by `line` (inserting `line` after
    /// the first line starting with `after` when none does).
    func edit(_ name: String, replacing prefix: String, with line: String, after: String? = nil) throws {
        var lines = try base.text(name).components(separatedBy: "\r\n")
        if lines.last == "" { lines.removeLast() }
        if let index = lines.firstIndex(where: { $0.hasPrefix(prefix) }) {
            lines[index] = line
        } else if let after, let index = lines.firstIndex(where: { $0.hasPrefix(after) }) {
            lines.insert(line, at: index + 1)
        } else {
            throw CocoaError(.fileReadCorruptFile)
        }
        try write(name, lines)
    }

    /// The stand-in's events of the mailbox (every type).
    var events: [[String: Any]] { standIn.events() }

    /// The stand-in's operations with `method` whose path ends with `suffix`.
    func operations(_ method: String, _ suffix: String = "") -> [String] {
        standIn.operations.filter { $0.method == method && $0.path.hasSuffix(suffix) }.map(\.path)
    }

    func record(_ name: String) throws -> SyncItemRecord? {
        try state.items(of: pairing).first { $0.fileName == name }
    }
}
