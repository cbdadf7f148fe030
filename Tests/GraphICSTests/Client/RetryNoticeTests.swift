import Foundation
import GraphStandIn
import Synchronization
import Testing

@testable import GraphICS

/// What a command's terminal is told while the client waits to try again, and the error for a host that
/// cannot be reached.
@Suite struct RetryNoticeTests {
    /// A client of `baseURL` whose notices and waits are recorded (it waits for real: a wait told is over
    /// before the next one begins).
    final class Recorder: Sendable {
        let lines = Mutex<[String]>([])
        let waits = Mutex<[Duration]>([])

        func client(_ baseURL: String, token: String = "token") throws -> GraphClient {
            GraphClient(
                baseURL: try #require(URL(string: baseURL)), transport: CurlTransport(defaultTimeout: .seconds(20)),
                tokens: StaticTokenSource(token: token),
                retry: RetryPolicy(baseDelay: .milliseconds(20), jitter: .none),
                notice: { line in self.lines.withLock { $0.append(line) } },
                sleep: { duration in
                    self.waits.withLock { $0.append(duration) }
                    GraphClient.sleep(for: duration)
                })
        }
    }

    @Test("a 503 with Retry-After is told once per wait, with the wait, the try and Graph's status")
    func unavailableIsTold() throws {
        let standIn = try GraphStandIn()
        defer { standIn.stop() }
        standIn.addUser(displayName: "Ada Lovelace", mail: "ada@contoso.example")
        var busy = LoopbackHTTPServer.Response.json(503, ["error": ["code": "ServiceUnavailable", "message": "busy"]])
        busy.headers.append(("Retry-After", "0.2"))
        standIn.injectFault(.respond(busy), forPathContaining: "/me", times: 2)
        let recorder = Recorder()
        let client = try recorder.client(standIn.baseURL, token: standIn.issueAccessToken())
        let me = try client.me()
        #expect(me.displayName == "Ada Lovelace")
        #expect(
            recorder.lines.withLock { $0 } == [
                "retrying in 0.2 s (2/6): Graph answered 503", "retrying in 0.2 s (3/6): Graph answered 503",
            ])
        #expect(recorder.waits.withLock { $0 } == [.milliseconds(200), .milliseconds(200)])
    }

    @Test("an unreachable host is named once, as HOST:PORT, and the error does not blame Graph or quote libcurl")
    func unreachableHost() throws {
        // A port nothing listens on: bound, then closed.
        let standIn = try GraphStandIn()
        let baseURL = standIn.baseURL
        standIn.stop()
        let port = try #require(URL(string: baseURL)?.port)
        let recorder = Recorder()
        let client = try recorder.client(baseURL)
        let error = try #require(throws: GraphError.self) { try client.me() }
        #expect(recorder.lines.withLock { $0 }.count == 1)
        #expect(recorder.lines.withLock { $0 }.first?.hasSuffix("(2/6): cannot reach 127.0.0.1:\(port)") == true)
        #expect(recorder.waits.withLock { $0 }.count == 5)
        #expect(error.kind == .unavailable)
        #expect(
            error.description
                == "cannot reach 127.0.0.1:\(port) while reading the signed-in user (tried 6 times); check the "
                + "network and the Graph URL.")
    }

    @Test("waits that overlap are told once; the wait is shown in whole seconds from 10 s, else in tenths")
    func overlappingWaits() {
        let lines = Mutex<[String]>([])
        let notice = RetryNotice { line in lines.withLock { $0.append(line) } }
        notice.waiting(.seconds(30), before: 2, of: 6, because: "Graph answered 429")
        notice.waiting(.seconds(30), before: 2, of: 6, because: "Graph answered 429")
        #expect(lines.withLock { $0 } == ["retrying in 30 s (2/6): Graph answered 429"])
        #expect(RetryNotice.seconds(.milliseconds(450)) == "0.5 s")
        #expect(RetryNotice.seconds(.milliseconds(10)) == "0.1 s")
        #expect(RetryNotice.seconds(.milliseconds(2000)) == "2 s")
        #expect(RetryNotice.seconds(.milliseconds(12_400)) == "12 s")
    }
}
