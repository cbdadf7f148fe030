import Foundation
import GraphICS
import TestSupport
import Testing

@testable import GraphICSServe

/// A server on a free loopback port answering with `handler`.
func startServer(
    _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerResponse
) throws -> HTTPServer {
    var configuration = HTTPServerConfiguration()
    configuration.port = 0
    configure(&configuration)
    return try HTTPServer(configuration: configuration, handler: handler)
}

/// `GET path` through graph-ics's own libcurl transport.
func curlGet(_ server: HTTPServer, _ path: String, headers: [(name: String, value: String)] = []) throws
    -> HTTPResponse
{
    let url = try #require(URL(string: "http://127.0.0.1:\(server.port)\(path)"))
    return try CurlTransport(defaultTimeout: .seconds(10)).send(HTTPRequest(method: "GET", url: url, headers: headers))
}

@Suite struct HTTPServerTests {
    private static var hello: HTTPBody { HTTPBody(Data("hello, calendar\n".utf8)) }

    /// `/feed.ics` is a body, anything else 404.
    private static func routing(_ request: HTTPServerRequest) -> HTTPServerResponse {
        guard request.path == "/feed.ics" else {
            return HTTPServerResponse(status: 404, body: HTTPBody(Data("not found\n".utf8)))
        }
        return HTTPServerResponse(
            status: 200, headers: [("Content-Type", "text/calendar; charset=utf-8")], body: hello)
    }

    @Test("GET answers the handler's status, type and body; an unknown path gets the handler's 404")
    func getAndNotFound() throws {
        let server = try startServer(handler: Self.routing)
        let found = try curlGet(server, "/feed.ics")
        #expect(found.status == 200)
        #expect(found.body == Data("hello, calendar\n".utf8))
        #expect(found.header("Content-Type") == "text/calendar; charset=utf-8")
        #expect(found.header("Content-Length") == "16")
        #expect(found.header("Date") != nil)
        let missing = try curlGet(server, "/other.ics")
        #expect(missing.status == 404)
        #expect(missing.body == Data("not found\n".utf8))
    }

    @Test("HEAD sends the header fields with the body's Content-Length and no body", arguments: [16, 300_000])
    func headHasNoBody(size: Int) throws {
        let body = HTTPBody(Data(repeating: 0x42, count: size))
        let server = try startServer { _ in
            HTTPServerResponse(status: 200, headers: [("Content-Type", "text/calendar; charset=utf-8")], body: body)
        }
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("HEAD /feed.ics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        let response = try connection.readResponse(head: true)
        #expect(response.status == 200)
        #expect(response.header("Content-Length") == "\(size)")
        #expect(response.header("Content-Type") == "text/calendar; charset=utf-8")
        #expect(connection.closesByPeer())
        #expect(connection.unread.isEmpty)
    }

    @Test("Request header fields, method, version, the raw path and the client's address reach the handler")
    func requestReachesHandler() throws {
        let seen = Locked<HTTPServerRequest?>(nil)
        let server = try startServer { request in
            seen.set(request)
            return HTTPServerResponse(
                status: 200,
                headers: [("ETag", "\"abc\""), ("Cache-Control", "private, max-age=300"), ("Vary", "Accept-Encoding")])
        }
        let response = try curlGet(
            server, "/s%20cret/caf%C3%A9.ics?x=1&y=2", headers: [("If-None-Match", "\"abc\""), ("X-Custom", "a b")])
        #expect(response.status == 200)
        #expect(response.header("ETag") == "\"abc\"")
        #expect(response.header("cache-control") == "private, max-age=300")
        #expect(response.header("Vary") == "Accept-Encoding")
        let request = try #require(seen.value)
        #expect(request.method == "GET")
        #expect(request.version == "HTTP/1.1")
        #expect(request.path == "/s%20cret/caf%C3%A9.ics")
        #expect(request.header("if-none-match") == "\"abc\"")
        #expect(request.header("X-CUSTOM") == "a b")
        #expect(request.header("Host") == "127.0.0.1:\(server.port)")
        #expect(request.remoteAddress.hasPrefix("127.0.0.1:"))
        #expect(UInt16(request.remoteAddress.dropFirst("127.0.0.1:".count)) != nil)
    }

    @Test("A header value with a line break is left out, the others are sent")
    func headerWithLineBreakLeftOut() throws {
        let server = try startServer { _ in
            HTTPServerResponse(status: 200, headers: [("X-Bad", "a\r\nSet-Cookie: x=1"), ("X-Good", "yes")])
        }
        let response = try curlGet(server, "/")
        #expect(response.status == 200)
        #expect(response.header("X-Good") == "yes")
        #expect(response.header("X-Bad") == nil)
        #expect(response.header("Set-Cookie") == nil)
    }

    @Test("A 2 MB body arrives intact, and HTTPBody.data gives back the bytes it was made from")
    func largeBodyIntact() throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<(2 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let body = HTTPBody(bytes)
        #expect(body.file >= 0)
        #expect(HTTPBody(bytes.prefix(1000)).file == -1)
        #expect(body.count == bytes.count)
        #expect(body.data == bytes)
        let server = try startServer { _ in HTTPServerResponse(status: 200, body: body) }
        for _ in 0..<3 {
            let response = try curlGet(server, "/big")
            #expect(response.status == 200)
            #expect(response.body == bytes)
        }
    }

    @Test("Keep-alive: two requests on one connection are both answered over that connection")
    func keepAliveReusesConnection() throws {
        let addresses = Locked<[String]>([])
        let server = try startServer { request in
            addresses.mutate { $0.append(request.remoteAddress) }
            return HTTPServerResponse(status: 200, body: HTTPBody(Data(request.path.utf8)))
        }
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /one HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let first = try connection.readResponse()
        try connection.send("GET /two HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let second = try connection.readResponse()
        #expect(first.body == Data("/one".utf8))
        #expect(second.body == Data("/two".utf8))
        #expect(first.header("Connection")?.lowercased() != "close")
        #expect(addresses.value.count == 2)
        #expect(Set(addresses.value).count == 1)
    }

    @Test("A request body is read and dropped, the handler answers, and the connection serves the next request")
    func requestBodyDropped() throws {
        let server = try startServer { request in
            HTTPServerResponse(status: request.method == "GET" ? 200 : 405, headers: [("Allow", "GET, HEAD")])
        }
        let connection = try RawHTTPConnection(port: server.port)
        let body = String(repeating: "x", count: 100_000)
        try connection.send("POST /feed.ics HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
        try connection.send(body)
        let refused = try connection.readResponse()
        #expect(refused.status == 405)
        #expect(refused.header("Allow") == "GET, HEAD")
        try connection.send("GET /feed.ics HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(try connection.readResponse().status == 200)
        try connection.send("PUT /x HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n")
        try connection.send("5\r\nhello\r\n0\r\n\r\n")
        #expect(try connection.readResponse().status == 405)
    }

    @Test("Port 0 binds a free port, a different one per server")
    func portZeroPicksFreePort() throws {
        let one = try startServer { _ in HTTPServerResponse(status: 200, body: HTTPBody(Data("1".utf8))) }
        let two = try startServer { _ in HTTPServerResponse(status: 200, body: HTTPBody(Data("2".utf8))) }
        #expect(one.port != 0)
        #expect(two.port != 0)
        #expect(one.port != two.port)
        #expect(try curlGet(one, "/").body == Data("1".utf8))
        #expect(try curlGet(two, "/").body == Data("2".utf8))
    }

    @Test("A port in use is an HTTPServerError naming the address and the reason")
    func addressInUse() throws {
        let first = try startServer { _ in HTTPServerResponse(status: 200) }
        var configuration = HTTPServerConfiguration()
        configuration.port = first.port
        let error = #expect(throws: HTTPServerError.self) {
            try HTTPServer(configuration: configuration) { _ in HTTPServerResponse(status: 200) }
        }
        #expect(error?.code == .cannotListen)
        #expect(error?.description == "cannot listen on 127.0.0.1:\(first.port): Address already in use")
        #expect(try curlGet(first, "/").status == 200)
    }

    @Test("An address that is not an IP literal, or a limit out of range, is refused before listening")
    func invalidConfiguration() {
        var named = HTTPServerConfiguration()
        named.address = "localhost"
        let error = #expect(throws: HTTPServerError.self) {
            try HTTPServer(configuration: named) { _ in HTTPServerResponse(status: 200) }
        }
        #expect(error?.code == .invalidAddress)
        #expect(error?.description == "cannot listen on localhost:8080: localhost is not an IPv4 or IPv6 address")
        var noThreads = HTTPServerConfiguration()
        noThreads.port = 0
        noThreads.threads = 0
        let limit = #expect(throws: HTTPServerError.self) {
            try HTTPServer(configuration: noThreads) { _ in HTTPServerResponse(status: 200) }
        }
        #expect(limit?.code == .invalidConfiguration)
    }

    @Test("An IPv6 literal is listened on, and the client's address comes in brackets")
    func ipv6Loopback() throws {
        let seen = Locked("")
        let server = try startServer({ $0.address = "::1" }) { request in
            seen.set(request.remoteAddress)
            return HTTPServerResponse(status: 200, body: HTTPBody(Data("six".utf8)))
        }
        let connection = try RawHTTPConnection(host: "::1", port: server.port)
        try connection.send("GET / HTTP/1.1\r\nHost: [::1]\r\n\r\n")
        #expect(try connection.readResponse().body == Data("six".utf8))
        #expect(seen.value.hasPrefix("[::1]:"))
        #expect(throws: RawHTTPConnection.Failure.self) { try RawHTTPConnection(port: server.port) }
        let any = try startServer({ $0.address = "::" }) { _ in HTTPServerResponse(status: 204) }
        let six = try RawHTTPConnection(host: "::1", port: any.port)
        try six.send("GET / HTTP/1.1\r\nHost: [::1]\r\n\r\n")
        #expect(try six.readResponse().status == 204)
        #expect(throws: RawHTTPConnection.Failure.self) { try RawHTTPConnection(port: any.port) }
    }

    @Test("stop() does not wait for idle keep-alive connections: it closes them at once")
    func stopClosesIdleConnections() throws {
        let server = try startServer({ $0.connectionTimeout = 30 }) { _ in HTTPServerResponse(status: 200) }
        let idle = try (0..<3).map { _ in try RawHTTPConnection(port: server.port) }
        for connection in idle {
            try connection.send("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try connection.readResponse().status == 200)
        }
        let clock = ContinuousClock()
        let start = clock.now
        server.stop()
        #expect(clock.now - start < .seconds(1))
        for connection in idle {
            #expect(connection.closesByPeer())
        }
    }

    @Test("A server no longer referenced stops listening")
    func releasedServerStops() throws {
        var server: HTTPServer? = try startServer { _ in HTTPServerResponse(status: 200) }
        let port = try #require(server?.port)
        _ = try RawHTTPConnection(port: port)
        server = nil
        #expect(throws: RawHTTPConnection.Failure.self) { try RawHTTPConnection(port: port) }
    }

    @Test("stop() lets a response in flight finish, then refuses connections; a second stop() does nothing")
    func stopFinishesInFlight() throws {
        let entered = DispatchSemaphore(value: 0)
        let body = HTTPBody(Data(repeating: 0x41, count: 300_000))
        let server = try startServer { _ in
            entered.signal()
            Thread.sleep(forTimeInterval: 0.5)
            return HTTPServerResponse(status: 200, body: body)
        }
        let port = server.port
        let connection = try RawHTTPConnection(port: port)
        try connection.send("GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(entered.wait(timeout: .now() + 5) == .success)
        let reader = Locked<Result<RawHTTPConnection.Response, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            reader.set(Result { try connection.readResponse() })
            done.signal()
        }.start()
        server.stop()
        #expect(done.wait(timeout: .now() + 5) == .success)
        let response = try #require(try reader.value?.get())
        #expect(response.status == 200)
        #expect(response.body.count == 300_000)
        #expect(response.header("Connection")?.lowercased() == "close")
        server.stop()
        #expect(throws: RawHTTPConnection.Failure.self) { try RawHTTPConnection(port: port) }
    }
}
