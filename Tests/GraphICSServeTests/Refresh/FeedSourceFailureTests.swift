import Foundation
import GraphICS
import GraphStandIn
import ICalBridge
import Testing

@testable import GraphICSServe

/// Graph failing: the last good body stays, the status says what went wrong, and the next good answer
/// recovers by itself.
@Suite struct FeedSourceFailureTests {
    private static func failure(_ status: Int) -> LoopbackHTTPServer.Action {
        .respond(
            LoopbackHTTPServer.Response(
                status: status, headers: [("Content-Type", "application/json")],
                body: Data(#"{"error":{"code":"ServiceUnavailable","message":"The service is busy."}}"#.utf8)))
    }

    @Test func aFailingGraphKeepsTheLastGoodBodyAndRecovers() throws {
        let fixture = try FeedFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        let source = fixture.source()
        try source.refresh(now: fixture.now)
        let good = try #require(source.current)

        try fixture.standIn.changeEvent(id: "lunch", ["subject": "Brunch"])
        // 503 three times: the client's retries give up.
        fixture.standIn.injectFault(Self.failure(503), forPathContaining: "calendarView", times: 3)
        let failedAt = fixture.now.addingTimeInterval(300)
        #expect(throws: GraphError.self) { try source.refresh(now: failedAt) }
        #expect(source.current == good)
        let status = source.status
        #expect(status.lastSuccess == fixture.now && status.lastErrorAt == failedAt && status.isFailing)
        let line = try #require(status.lastError)
        #expect(line.contains("HTTP 503") && !line.contains("\n"), "\(line)")
        #expect(!line.contains("Lunch") && !line.contains("Brunch") && !line.contains("team"))

        // A 500 is not retried; the body stays too.
        fixture.standIn.injectFault(Self.failure(500), forPathContaining: "calendarView")
        #expect(throws: GraphError.self) { try source.refresh(now: failedAt.addingTimeInterval(300)) }
        #expect(source.current == good && source.status.lastError?.contains("HTTP 500") == true)

        let recovered = failedAt.addingTimeInterval(600)
        #expect(try source.refresh(now: recovered) == .changed)
        #expect(FeedFixture.text(source.current).contains("SUMMARY:Brunch"))
        #expect(source.status.lastSuccess == recovered && !source.status.isFailing)
        #expect(source.status.lastError != nil, "the last error stays on record")
    }

    @Test func aFirstRefreshThatFailsLeavesNoBody() throws {
        let fixture = try FeedFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        let source = fixture.source()
        fixture.standIn.injectFault(Self.failure(500), forPathContaining: "calendarView")
        #expect(throws: GraphError.self) { try source.refresh(now: fixture.now) }
        #expect(source.current == nil && source.status.isFailing && source.status.lastSuccess == nil)
        #expect(try source.refresh(now: fixture.now) == .changed && source.current != nil)
    }

    @Test func aFailureInTheMiddleOfARoundChangesNothing() throws {
        let fixture = try FeedFixture()
        try fixture.standIn.addEvents(count: 25, from: fixture.windowStart, to: fixture.windowEnd)
        let source = fixture.source(pageSize: 10)
        try source.refresh(now: fixture.now)
        let good = try #require(source.current)
        // The window moves past the mirror's (30 days of slack): a whole round whose second page fails.
        let later = fixture.now.addingTimeInterval(40 * 86_400)
        fixture.standIn.injectFault(Self.failure(500), forPathContaining: "skiptoken")
        #expect(throws: GraphError.self) { try source.refresh(now: later) }
        #expect(source.current == good)
        #expect(try source.refresh(now: later) == .changed)
        #expect(source.lastRefresh?.round == .full)
    }

    @Test func aRefusedSignInIsRecordedWithoutTheToken() throws {
        let fixture = try FeedFixture()
        try fixture.addSingle("Lunch", day: 3, id: "lunch")
        let token = "eyJhbGciOi.not-a-token-the-stand-in-issued"
        let client = GraphClient(
            baseURL: fixture.client.baseURL, transport: CurlTransport(defaultTimeout: .seconds(20)),
            tokens: StaticTokenSource(token: token))
        let source = FeedSource(target: fixture.target(), client: client, stateDirectory: fixture.state.url)
        #expect(throws: AuthError.self) { try source.refresh(now: fixture.now) }
        let line = try #require(source.status.lastError)
        #expect(line.contains("refused the access token") && !line.contains("eyJ"), "\(line)")
        #expect(source.current == nil)
    }

    @Test func theStatusLineIsOneLineOfBoundedLength() {
        struct Noisy: Error, CustomStringConvertible {
            var description: String { "first\nsecond\r\tthird " + String(repeating: "x", count: 400) }
        }
        let line = FeedSource.statusLine(Noisy())
        #expect(line.hasPrefix("first second  third ") && line.count == 300 && !line.contains("\n"))
    }
}
