import Foundation
import GraphICS
import GraphStandIn
import ICalBridge
import TestSupport
import Testing

@testable import GraphICSServe

/// ``FeedService`` against the stand-in: feeds loaded from a configuration get bodies, a rotated secret
/// keeps the body, a removed feed goes, a failing mailbox is logged once.
@Suite struct FeedServiceTests {
    let standIn: GraphStandIn
    let state: URL
    let log = Locked<[String]>([])

    init() throws {
        standIn = try GraphStandIn()
        standIn.addUser(displayName: "Ada Lovelace", mail: "ada@contoso.example", mailboxTimeZone: "UTC")
        let day = ISO8601DateFormatter.string(
            from: Date().addingTimeInterval(86_400), timeZone: .gmt, formatOptions: [.withFullDate])
        try standIn.addEvent([
            "subject": "Planning", "iCalUId": "uid-planning",
            "start": ["dateTime": "\(day)T09:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "\(day)T10:00:00", "timeZone": "UTC"],
        ])
        state = FileManager.default.temporaryDirectory.appendingPathComponent("graph-ics-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
    }

    func resolver() throws -> FeedResolver {
        let client = GraphClient(
            baseURL: try #require(URL(string: standIn.baseURL)), transport: CurlTransport(defaultTimeout: .seconds(20)),
            tokens: StaticTokenSource(token: standIn.issueAccessToken()))
        return { definition in
            ResolvedFeed(
                target: FeedTarget(
                    definition: definition, calendarID: nil, isPrimary: true, zone: .utc, calendarName: nil),
                client: client)
        }
    }

    func service(resolve: @escaping FeedResolver) -> FeedService {
        let log = self.log
        return FeedService(
            refreshInterval: 1, stateDirectory: state, resolve: resolve, log: { line in log.mutate { $0.append(line) } }
        )
    }

    static func definition(_ name: String, secret: String) -> FeedDefinition {
        FeedDefinition(name: name, secret: secret, calendar: nil, user: nil)
    }

    static let secret = String(repeating: "1a", count: 32)
    static let rotated = String(repeating: "2b", count: 32)

    /// Waits until `condition` holds for the service's feeds.
    static func wait(_ service: FeedService, timeout: Double = 30, _ condition: ([ServedFeed]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(service.feeds) { return true }
            usleep(20_000)
        }
        return false
    }

    @Test func aLoadedFeedGetsABodyAndARotationKeepsIt() throws {
        let service = service(resolve: try resolver())
        defer { service.stop() }
        service.load(FeedConfiguration(baseURL: nil, feeds: [Self.definition("work", secret: Self.secret)]))
        #expect(Self.wait(service) { $0.first?.body != nil })
        let body = try #require(service.feeds.first?.body)
        #expect(String(decoding: body.identity.data, as: UTF8.self).contains("SUMMARY:Planning"))

        service.load(FeedConfiguration(baseURL: nil, feeds: [Self.definition("work", secret: Self.rotated)]))
        let feed = try #require(service.feeds.first)
        #expect(feed.secret == Self.rotated)
        #expect(feed.body === body, "a rotation keeps the rendered body (and its gzip)")
        let old = HTTPServerRequest(
            method: "GET", path: "/\(Self.secret)/work.ics", version: "HTTP/1.1", headers: [], remoteAddress: "t")
        #expect(service.respond(to: old).status == 404)

        service.load(FeedConfiguration(baseURL: nil, feeds: []))
        #expect(service.feeds.isEmpty)
    }

    @Test func aFeedThatCannotBeResolvedIs503AndLoggedOnce() throws {
        struct Refused: Error, CustomStringConvertible { var description: String { "no calendar named 'Nope'" } }
        let service = service(resolve: { _ in throw Refused() })
        defer { service.stop() }
        service.load(FeedConfiguration(baseURL: nil, feeds: [Self.definition("work", secret: Self.secret)]))
        #expect(Self.wait(service) { $0.first?.status.lastError != nil })
        usleep(2_500_000)
        #expect(log.value == ["feed work: cannot be read: no calendar named 'Nope'"])
        let request = HTTPServerRequest(
            method: "GET", path: "/\(Self.secret)/work.ics", version: "HTTP/1.1", headers: [], remoteAddress: "t")
        let response = service.respond(to: request)
        #expect(response.status == 503)
    }
}
