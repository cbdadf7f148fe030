import Foundation
import GraphICS
import TestSupport
import Testing

@testable import GraphICSServe

/// The limits of `HTTPServerConfiguration`: what one client can hold does not stop others from being served.
@Suite struct HTTPServerLimitsTests {
    private static var ok: HTTPBody { HTTPBody(Data("ok\n".utf8)) }

    private static func answer(_ request: HTTPServerRequest) -> HTTPServerResponse {
        HTTPServerResponse(status: 200, body: ok)
    }

    /// Sends a good request on a new connection and returns its status and how long the answer took.
    private static func goodRequest(port: UInt16, from source: String? = nil) throws -> (Int, Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let connection = try RawHTTPConnection(port: port, source: source, timeout: 3)
        try connection.send("GET /feed.ics HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let response = try connection.readResponse()
        return (response.status, clock.now - start)
    }

    @Test("Hundreds of idle connections within the limit do not delay a good request")
    func idleConnectionsWithinLimit() throws {
        let server = try startServer({ $0.connectionLimit = 600 }, handler: Self.answer)
        let idle = try (0..<500).map { _ in try RawHTTPConnection(port: server.port) }
        let (status, elapsed) = try Self.goodRequest(port: server.port)
        #expect(status == 200)
        #expect(elapsed < .seconds(1))
        #expect(idle.count == 500)
    }

    @Test("Connections beyond the per-address limit are closed; another address is still served")
    func perAddressLimit() throws {
        let server = try startServer({ $0.perAddressConnectionLimit = 4 }, handler: Self.answer)
        let held = try (0..<4).map { _ in try RawHTTPConnection(port: server.port) }
        Thread.sleep(forTimeInterval: 0.2)
        let extra = try RawHTTPConnection(port: server.port, timeout: 2)
        #expect(extra.closesByPeer())
        let (status, elapsed) = try Self.goodRequest(port: server.port, from: "127.0.0.2")
        #expect(status == 200)
        #expect(elapsed < .seconds(1))
        #expect(held.count == 4)
    }

    @Test("Past the connection limit new connections are closed until idle ones time out; then all is served")
    func connectionLimitRecovers() throws {
        let server = try startServer(
            {
                $0.connectionLimit = 4
                $0.threads = 1
                $0.connectionTimeout = 1
            }, handler: Self.answer)
        let held = try (0..<4).map { _ in try RawHTTPConnection(port: server.port) }
        Thread.sleep(forTimeInterval: 0.2)
        let extra = try RawHTTPConnection(port: server.port, timeout: 2)
        try? extra.send("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(extra.closesByPeer())
        for connection in held {
            #expect(connection.closesByPeer())
        }
        let (status, _) = try Self.goodRequest(port: server.port)
        #expect(status == 200)
    }

    @Test("An idle connection is closed after the connection timeout; a busy one is not")
    func idleTimeout() throws {
        let server = try startServer({ $0.connectionTimeout = 1 }, handler: Self.answer)
        let clock = ContinuousClock()
        let start = clock.now
        let idle = try RawHTTPConnection(port: server.port, timeout: 5)
        try idle.send("GET / HTTP/1.1\r\n")
        #expect(idle.closesByPeer())
        let elapsed = clock.now - start
        #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(4))
        let (status, _) = try Self.goodRequest(port: server.port)
        #expect(status == 200)
    }

    @Test("A client sending one byte a second is disconnected at the request timeout; others are served meanwhile")
    func slowClientTimesOut() throws {
        let server = try startServer(
            {
                $0.requestTimeout = 2
                $0.threads = 1
            }, handler: Self.answer)
        let clock = ContinuousClock()
        let start = clock.now
        let slow = try RawHTTPConnection(port: server.port, timeout: 1)
        var closedAfter: Duration?
        for byte in "GET /feed.ics HTTP/1.1\r\nHost: localhost\r\nX-Slow: ".utf8.prefix(8) {
            try? slow.send(Data([byte]))
            let (status, elapsed) = try Self.goodRequest(port: server.port)
            #expect(status == 200)
            #expect(elapsed < .seconds(1))
            if slow.closesByPeer() {
                closedAfter = clock.now - start
                break
            }
        }
        let closed = try #require(closedAfter, "the slow client was still connected after 8 seconds")
        #expect(closed >= .milliseconds(1900) && closed < .seconds(4))
    }

    @Test("A request that is not HTTP gets libmicrohttpd's 400 without reaching the handler, and others are served")
    func malformedRequest() throws {
        let reached = Locked(0)
        let server = try startServer { request in
            reached.mutate { $0 += 1 }
            return Self.answer(request)
        }
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /feed.ics HTTP/1.1\r\nHost: localhost\r\nthis line has no colon\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 400)
        #expect(reached.value == 0)
        let (status, _) = try Self.goodRequest(port: server.port)
        #expect(status == 200)
        #expect(reached.value == 1)
    }

    @Test("A 100 KB header gets 431 or a closed connection, and the server keeps answering")
    func oversizedHeader() throws {
        let server = try startServer(handler: Self.answer)
        let connection = try RawHTTPConnection(port: server.port)
        let big = String(repeating: "a", count: 100 * 1024)
        try? connection.send("GET /feed.ics HTTP/1.1\r\nHost: localhost\r\nX-Big: \(big)\r\n\r\n")
        if let response = try? connection.readResponse() {
            #expect(response.status == 431)
        }
        #expect(connection.closesByPeer())
        let (status, elapsed) = try Self.goodRequest(port: server.port)
        #expect(status == 200)
        #expect(elapsed < .seconds(1))
    }

    @Test("A request body reaches the handler whole (chunked too); one past the limit gets 413 without the handler")
    func requestBodies() throws {
        let bodies = Locked<[Data]>([])
        let server = try startServer({ $0.requestBodyLimit = 1000 }) { request in
            bodies.mutate { $0.append(request.body) }
            return Self.answer(request)
        }
        let connection = try RawHTTPConnection(port: server.port)
        let text = String(repeating: "<x/>", count: 200)
        try connection.send("PUT /a HTTP/1.1\r\nHost: localhost\r\nContent-Length: 800\r\n\r\n" + text)
        #expect(try connection.readResponse().status == 200)
        try connection.send(
            "PUT /b HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
        #expect(try connection.readResponse().status == 200)
        #expect(bodies.value == [Data(text.utf8), Data("abcde".utf8)])
        let large = try RawHTTPConnection(port: server.port)
        try large.send(
            "PUT /c HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1001\r\n\r\n" + String(repeating: "y", count: 1001))
        #expect(try large.readResponse().status == 413)
        #expect(bodies.value.count == 2)
        let (status, _) = try Self.goodRequest(port: server.port)
        #expect(status == 200)
    }
}
