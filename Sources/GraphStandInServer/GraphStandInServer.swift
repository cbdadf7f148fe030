import Foundation
import GraphICS
import GraphStandIn

/// `graph-standin`: the loopback Microsoft Graph stand-in of graph-ics's tests as a program of its own, for
/// the network benchmarks (`scripts/bench-graph`, `scripts/bench-sync`), the sync's check with real clients
/// (`scripts/check-sync`) and for trying graph-ics without an account.
///
/// It seeds a mailbox (single events and recurring series, `SeriesSeed`), writes the environment that
/// points graph-ics at it to a file (0600), serves until SIGTERM or SIGINT, and writes what it saw as JSON
/// then and on every SIGUSR1. Scripts change events "in Outlook" through its Graph API itself (curl with
/// the environment's token), as any client would.
@main
enum GraphStandInServer {
    static let usage = """
        Usage: graph-standin [--events N] [--series S] [--from YYYY-MM-DD] [--days D] [--latency MS]
                             [--mailbox-zone NAME] [--seed-json FILE] --env-file FILE [--stats FILE]
               graph-standin --dump-schema

        Serves a Microsoft Graph stand-in on 127.0.0.1 with N events (default 0) spread over D days
        (default 7) from --from (default the Monday of this week, UTC). S of the N (default 0) are
        recurring series edited in Outlook: a daily, every-other-day or weekly pattern in one of six
        zones, each with an occurrence moved and renamed, one renamed and one cancelled; the others
        are single events in UTC. --seed-json adds the events of FILE, Graph JSON as calendarView
        returns it (a collection, an array or one event), to the default calendar as they are:
        properties a POST cannot set (responseStatus, isOrganizer) included. --env-file receives
        GRAPH_ICS_GRAPH_URL, GRAPH_ICS_AUTHORITY and GRAPH_ICS_ACCESS_TOKEN lines (a token of this
        stand-in only) once it is serving. --latency adds MS milliseconds to every HTTP request to
        Graph (a $batch once), as a distant network would.
        `graph-ics login` (any GRAPH_ICS_CLIENT_ID) signs in as the seeded user at its second poll.
        --stats FILE receives what the stand-in saw as JSON: HTTP requests (requests; those to
        Graph, a $batch once: graphRequests), Graph operations (parts of a $batch counted one by
        one), calendarView requests, $batch requests, the most requests in flight for the
        mailbox, events stored (occurrences included), and the operations counted by method and
        path with the ids left out (operationsByPath). It is written (atomically) on SIGUSR1,
        which leaves the stand-in serving, and on SIGTERM or SIGINT, which stop it.

        graph-standin --dump-schema prints the stand-in's event schema (accepted properties, read-only
        ones, checked types, enum values) as JSON, for scripts/check-contract. With GRAPH_STANDIN_BODIES
        naming a folder, every stand-in records there the requests it answered with a 2xx, one JSON file each.

        """

    static func main() {
        var options: [String: String] = [:]
        var arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "--dump-schema" {
            do {
                FileHandle.standardOutput.write(try GraphStandIn.schemaDump() + Data("\n".utf8))
                exit(0)
            } catch {
                FileHandle.standardError.write(Data("graph-standin: \(error)\n".utf8))
                exit(1)
            }
        }
        while let name = arguments.popFirst() {
            guard name.hasPrefix("--"), let value = arguments.popFirst() else {
                FileHandle.standardError.write(Data((name == "--help" ? usage : "bad arguments\n" + usage).utf8))
                exit(name == "--help" ? 0 : 64)
            }
            options[name] = value
        }
        guard let envFile = options["--env-file"] else {
            FileHandle.standardError.write(Data(("--env-file is required\n" + usage).utf8))
            exit(64)
        }
        do {
            try serve(options: options, envFile: envFile)
        } catch {
            FileHandle.standardError.write(Data("graph-standin: \(error)\n".utf8))
            exit(1)
        }
    }

    static func serve(options: [String: String], envFile: String) throws {
        let standIn = try GraphStandIn()
        standIn.addUser(
            displayName: "Ana Example", mail: "ana@contoso.example",
            mailboxTimeZone: options["--mailbox-zone"] ?? "W. Europe Standard Time")
        let count = Int(options["--events"] ?? "0") ?? 0
        let series = min(Int(options["--series"] ?? "0") ?? 0, count)
        let days = Int(options["--days"] ?? "7") ?? 7
        let from = try startDate(options["--from"])
        _ = try standIn.addEvents(
            count: count - series, from: from, to: from.addingTimeInterval(Double(days) * 86_400))
        for index in 0..<series {
            try SeriesSeed(index: index, from: from, days: days).seed(into: standIn)
        }
        if let seed = options["--seed-json"] {
            _ = try standIn.addEvents(fromGraphJSON: Data(contentsOf: URL(fileURLWithPath: seed)))
        }
        standIn.networkLatency = .milliseconds(Int(options["--latency"] ?? "0") ?? 0)

        let environment = """
            GRAPH_ICS_GRAPH_URL=\(standIn.baseURL)
            GRAPH_ICS_AUTHORITY=\(standIn.authority)
            GRAPH_ICS_ACCESS_TOKEN=\(standIn.issueAccessToken())

            """
        try AtomicFile(envFile).write(Data(environment.utf8))

        let stop = DispatchSemaphore(value: 0)
        let statsFile = options["--stats"]
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGTERM, SIGINT, SIGUSR1] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                guard number == SIGUSR1 else {
                    stop.signal()
                    return
                }
                do {
                    try statsFile.map { try writeStats(of: standIn, to: $0) }
                } catch {
                    FileHandle.standardError.write(Data("graph-standin: \(error)\n".utf8))
                }
            }
            source.resume()
            sources.append(source)
        }
        stop.wait()
        withExtendedLifetime(sources) {}
        try statsFile.map { try writeStats(of: standIn, to: $0) }
        standIn.stop()
    }

    /// Writes what the stand-in saw so far to `path` as JSON, through a temporary file and a rename so
    /// that a reader never sees half of it.
    static func writeStats(of standIn: GraphStandIn, to path: String) throws {
        let requests = standIn.requests
        let operations = standIn.operations
        let stats: [String: Any] = [
            "requests": requests.count,
            "graphRequests": requests.filter { $0.path.hasPrefix("/v1.0/") }.count,
            "operations": operations.count,
            "operationsByPath": Dictionary(operations.map { (pathShape(of: $0), 1) }, uniquingKeysWith: +),
            "calendarView": requests.filter { $0.path.hasSuffix("/calendarView") }.count,
            "batch": requests.filter { $0.path.hasSuffix("/$batch") }.count,
            "maxInFlightPerMailbox": standIn.maxInFlightPerMailbox,
            "throttled": standIn.throttledCount,
            "events": standIn.eventCount,
        ]
        let data = try JSONSerialization.data(withJSONObject: stats, options: [.sortedKeys])
        try AtomicFile(path, permissions: .likeReplaced).write(data)
    }

    /// A request as `METHOD /path` with the version and every id left out (`GET /me/events/{id}/instances`),
    /// so that the statistics count requests of one kind together.
    static func pathShape(of request: GraphStandIn.RecordedRequest) -> String {
        let segments = request.path.split(separator: "/").dropFirst(request.path.hasPrefix("/v1.0") ? 1 : 0)
        let shape = segments.map { $0.count > 20 ? "{id}" : String($0) }.joined(separator: "/")
        return request.method.uppercased() + " /" + shape
    }

    /// `YYYY-MM-DD` at 00:00 UTC, or the Monday of this week.
    static func startDate(_ text: String?) throws -> Date {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        guard let text else {
            let now = Date()
            return calendar.dateInterval(of: .weekOfYear, for: now)?.start ?? now
        }
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3,
            let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))
        else {
            throw CocoaError(.formatting, userInfo: [NSLocalizedDescriptionKey: "--from \(text) is not YYYY-MM-DD"])
        }
        return date
    }
}
