import Foundation
import GraphICS
import GraphStandIn
import ICalBridge

/// `graph-ics demo`: the real jobs of graph-ics against a bundled Microsoft Graph stand-in, as a tutorial
/// would show them. The stand-in runs in this process on a free loopback port with a seeded week
/// (``DemoMailbox``); each step is `graph-ics` itself, run as a child with an environment that points at the
/// stand-in and at the demo's folder (``DemoScript``), so a real sign-in is never read or touched.
struct DemoCommand: Command {
    static let name = "demo"
    static let abstract = "Try graph-ics on a bundled stand-in for Microsoft Graph: no account needed."
    static let synopsis = ["[--dir DIR]"]
    static let discussion = """
        Starts a stand-in for Microsoft Graph on a free loopback port, with a week of events in
        the mailbox of "Ana Example" (time zone W. Europe Standard Time): a daily stand-up with a
        moved and a cancelled occurrence, a Teams meeting, a private appointment, a flight from
        Frankfurt to New York and an all-day offsite. Then it runs graph-ics's commands against it,
        printing each command line before its output: whoami, calendars, agenda, export (both
        recurrence modes), import of a ticket (twice: the second run skips it), a dry run of an
        invitation, sync with a change on each side, and a short serve of a feed.

        Everything the demo writes goes into DIR (default ./graph-ics-demo): the exported files,
        the ticket, the synced folder, and the sign-in and state folders the commands are pointed
        at (GRAPH_ICS_CONFIG_DIR, GRAPH_ICS_STATE_DIR), so a real sign-in is never used or changed.
        DIR must be new, empty, or an earlier demo's folder (whose files are replaced). The
        stand-in stops when the demo ends. It ends with how to do the same with a real account.
        """
    static let epilogue = """
        Examples:
          graph-ics demo
          graph-ics demo --dir /tmp/try-graph-ics

        Exit status: 0 ok, 64 usage, 69 the stand-in could not start, 73 DIR cannot be used,
        74 a step of the demo failed.
        """

    struct Options: OptionGroup {
        let dir = Option(
            "--dir", value: "DIR", help: "Write everything into this folder (default ./graph-ics-demo).",
            completion: .file
        ).refusingEmpty("--dir needs a folder")
    }

    /// The folder named on the command line (relative to the current folder), or the default.
    var directory: String

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        guard parsed.positionals.isEmpty else { throw UsageError("demo takes no arguments; --dir names its folder") }
        directory = try parsed[\.dir] ?? "graph-ics-demo"
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        let folder = try DemoFolder.prepare(directory)
        let standIn: GraphStandIn
        let mailbox: DemoMailbox
        do {
            standIn = try GraphStandIn()
            mailbox = try DemoMailbox.seed(into: standIn)
        } catch {
            throw CommandFailure(.unavailable, "the demo's Graph stand-in could not start: \(error)")
        }
        defer { standIn.stop() }
        try DemoScript(folder: folder, standIn: standIn, mailbox: mailbox, terminal: terminal).run()
        return .ok
    }
}

/// The demo's folder: checked, emptied of an earlier demo's files, and laid out.
struct DemoFolder {
    /// The file that marks a folder as a demo's, so that a later demo may replace what is in it.
    static let marker = ".graph-ics-demo"
    /// What a demo writes at the top of its folder, and so what a later demo removes first.
    static let entries = [
        "config", "state", "home", "calendar", "this-week.ics", "this-week-series.ics", "ticket.ics",
        "invitation.ics",
    ]

    let url: URL

    var config: URL { url.appendingPathComponent("config") }
    var state: URL { url.appendingPathComponent("state") }
    var home: URL { url.appendingPathComponent("home") }

    /// Makes `path` (relative to the current folder) ready: created when missing; refused when it holds
    /// anything and is not an earlier demo's folder.
    static func prepare(_ path: String) throws -> DemoFolder {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw CommandFailure(.cannotCreateOutput, "\(url.path) is a file; give --dir a new or empty folder")
            }
            let contents = (try? manager.contentsOfDirectory(atPath: url.path)) ?? []
            guard contents.isEmpty || contents.contains(marker) else {
                throw CommandFailure(
                    .cannotCreateOutput,
                    "\(url.path) is not empty and is not an earlier demo's folder; give --dir a new or empty folder")
            }
        }
        let folder = DemoFolder(url: url)
        do {
            for entry in entries where manager.fileExists(atPath: url.appendingPathComponent(entry).path) {
                try manager.removeItem(at: url.appendingPathComponent(entry))
            }
            try manager.createDirectory(at: url, withIntermediateDirectories: true)
            try Data().write(to: url.appendingPathComponent(marker))
            for private_ in [folder.config, folder.state, folder.home] {
                try manager.createDirectory(
                    at: private_, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
        } catch {
            throw CommandFailure(
                .cannotCreateOutput,
                "\(url.path) cannot be used for the demo (\(Self.reason(error))); give --dir a folder you can write in")
        }
        return folder
    }

    /// The system's words for why a file operation failed (`Read-only file system`), not Foundation's
    /// description of its error object.
    static func reason(_ error: any Error) -> String {
        var current = error as NSError
        while true {
            if current.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(current.code))) }
            guard let underlying = current.userInfo[NSUnderlyingErrorKey] as? NSError else { break }
            current = underlying
        }
        switch CocoaError.Code(rawValue: (error as NSError).code) {
        case .fileWriteVolumeReadOnly: return String(cString: strerror(EROFS))
        case .fileWriteNoPermission: return String(cString: strerror(EACCES))
        case .fileWriteOutOfSpace: return String(cString: strerror(ENOSPC))
        case .fileNoSuchFile: return String(cString: strerror(ENOENT))
        default: return (error as NSError).localizedDescription
        }
    }

    /// Writes `text` to `name` in the folder.
    func write(_ text: String, to name: String) throws {
        let path = url.appendingPathComponent(name).path
        do {
            try AtomicFile(path, permissions: .likeReplaced).write(Data(text.utf8))
        } catch {
            throw CommandFailure(.ioError, "\(path) cannot be written: \(POSIXFile.describe(error.errno))")
        }
    }
}
