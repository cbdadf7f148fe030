import Foundation
import GraphICS
import GraphStandIn
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real libcurl transport against `LoopbackHTTPServer` on 127.0.0.1; nothing leaves the machine.
@Suite struct CurlTransportTests {
    /// A server that answers every request with a JSON echo of what it received.
    static func echoServer() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            var headers: [String: String] = [:]
            for (name, value) in request.headers {
                headers[name.lowercased()] = value
            }
            return .respond(
                LoopbackHTTPServer.Response(
                    status: request.method == "POST" ? 201 : 200,
                    headers: [("Content-Type", "application/json"), ("X-Echo", "yes")],
                    body: (try? JSONSerialization.data(withJSONObject: [
                        "method": request.method, "target": request.target,
                        "body": String(decoding: request.body, as: UTF8.self), "headers": headers,
                        "connection": request.connectionID,
                    ])) ?? Data()))
        }
    }

    struct Echo {
        var method: String
        var target: String
        var body: String
        var headers: [String: String]
        var connection: Int

        init(_ response: HTTPResponse) throws {
            let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            method = try #require(object["method"] as? String)
            target = try #require(object["target"] as? String)
            body = try #require(object["body"] as? String)
            headers = try #require(object["headers"] as? [String: String])
            connection = try #require(object["connection"] as? Int)
        }
    }

    func url(_ server: LoopbackHTTPServer, _ path: String) throws -> URL {
        try #require(URL(string: server.baseURL + path))
    }

    @Test("GET, POST, PATCH and DELETE round trip with their headers and bodies")
    func methodsRoundTrip() throws {
        let server = try Self.echoServer()
        defer { server.stop() }
        let transport = CurlTransport()

        let get = try transport.send(
            HTTPRequest(method: "GET", url: url(server, "/v1.0/me/events?$top=10&x=a%20b"), headers: [("X-Test", "1")]))
        #expect(get.status == 200)
        #expect(get.header("x-echo") == "yes")
        let getEcho = try Echo(get)
        #expect(getEcho.method == "GET")
        #expect(getEcho.target == "/v1.0/me/events?$top=10&x=a%20b")
        #expect(getEcho.headers["x-test"] == "1")
        #expect(getEcho.headers["user-agent"] == CurlTransport.defaultUserAgent)
        #expect(getEcho.headers["accept-encoding"]?.contains("gzip") == true)
        #expect(getEcho.body.isEmpty)

        let json = Data(#"{"subject":"Ünïcode ✓","transactionId":"t-1"}"#.utf8)
        let post = try transport.send(
            HTTPRequest(
                method: "POST", url: url(server, "/v1.0/me/events"),
                headers: [("Content-Type", "application/json"), ("Authorization", "Bearer abc")], body: json))
        #expect(post.status == 201)
        let postEcho = try Echo(post)
        #expect(postEcho.method == "POST")
        #expect(postEcho.body == String(decoding: json, as: UTF8.self))
        #expect(postEcho.headers["content-type"] == "application/json")
        #expect(postEcho.headers["authorization"] == "Bearer abc")
        #expect(postEcho.headers["expect"] == nil)

        let patch = try transport.send(
            HTTPRequest(method: "PATCH", url: url(server, "/v1.0/me/events/1"), body: Data(#"{"a":1}"#.utf8)))
        let patchEcho = try Echo(patch)
        #expect(patchEcho.method == "PATCH")
        #expect(patchEcho.body == #"{"a":1}"#)
        // No Content-Type given: libcurl's form default is not sent either.
        #expect(patchEcho.headers["content-type"] == nil)

        let delete = try transport.send(HTTPRequest(method: "DELETE", url: url(server, "/v1.0/me/events/1")))
        let deleteEcho = try Echo(delete)
        #expect(delete.status == 200)
        #expect(deleteEcho.method == "DELETE")
        #expect(deleteEcho.body.isEmpty)

        let emptyPost = try transport.send(HTTPRequest(method: "POST", url: url(server, "/v1.0/me/events/1/cancel")))
        let emptyPostEcho = try Echo(emptyPost)
        #expect(emptyPostEcho.method == "POST")
        #expect(emptyPostEcho.headers["content-length"] == "0")
    }

    @Test("a large POST body goes out at once, without an Expect: 100-continue pause")
    func largeBodyWithoutExpect() throws {
        let server = try Self.echoServer()
        defer { server.stop() }
        let body = Data(repeating: UInt8(ascii: "x"), count: 2 << 20)
        let response = try CurlTransport().send(
            HTTPRequest(
                method: "PUT", url: url(server, "/upload"), headers: [("Content-Type", "text/plain")], body: body))
        let echo = try Echo(response)
        #expect(echo.body.utf8.count == body.count)
        // Without the header libcurl does not wait (up to a second) for a 100 Continue; timing it here would
        // only measure the machine's load.
        #expect(echo.headers["expect"] == nil)
    }

    @Test("4xx and 5xx are responses with their bodies, and redirects are not followed")
    func errorStatusesAreResponses() throws {
        let server = try LoopbackHTTPServer { request in
            switch request.path {
            case "/missing":
                .respond(.json(404, ["error": ["code": "ErrorItemNotFound", "message": "gone"]]))
            case "/moved":
                .respond(LoopbackHTTPServer.Response(status: 302, headers: [("Location", "/elsewhere")]))
            default:
                .respond(.text(503, "busy"))
            }
        }
        defer { server.stop() }
        let transport = CurlTransport()
        let missing = try transport.send(HTTPRequest(method: "GET", url: url(server, "/missing")))
        #expect(missing.status == 404)
        let object = try JSONSerialization.jsonObject(with: missing.body) as? [String: [String: String]]
        #expect(object?["error"]?["code"] == "ErrorItemNotFound")

        let moved = try transport.send(HTTPRequest(method: "GET", url: url(server, "/moved")))
        #expect(moved.status == 302)
        #expect(moved.header("Location") == "/elsewhere")
        #expect(server.requestCount == 2)

        let busy = try transport.send(HTTPRequest(method: "GET", url: url(server, "/other")))
        #expect(busy.status == 503)
        #expect(String(decoding: busy.body, as: UTF8.self) == "busy")
    }

    @Test("only the final response's header fields are kept (a 1xx before it is dropped)")
    func headersOfFinalResponseOnly() throws {
        let raw =
            "HTTP/1.1 100 Continue\r\nX-Interim: 1\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Final: yes\r\nX-Folded: one\r\n two\r\n\r\nok"
        let server = try LoopbackHTTPServer { _ in .raw(Data(raw.utf8)) }
        defer { server.stop() }
        let response = try CurlTransport().send(HTTPRequest(method: "GET", url: url(server, "/")))
        #expect(response.status == 200)
        #expect(response.header("X-Final") == "yes")
        #expect(response.header("X-Interim") == nil)
        #expect(response.header("X-Folded") == "one two")
        #expect(response.body == Data("ok".utf8))
    }

    @Test("a gzip-encoded body arrives decoded")
    func gzipBodyIsDecoded() throws {
        let gzip = try #require(Data(base64Encoded: "H4sIAAAAAAACA8tIzcnJV0grys9VSK/KLAAAZKqOtQ8AAAA="))
        let server = try LoopbackHTTPServer { _ in
            .respond(LoopbackHTTPServer.Response(status: 200, headers: [("Content-Encoding", "gzip")], body: gzip))
        }
        defer { server.stop() }
        let response = try CurlTransport().send(HTTPRequest(method: "GET", url: url(server, "/")))
        #expect(String(decoding: response.body, as: UTF8.self) == "hello from gzip")
    }

    @Test("requests reuse one kept-alive connection")
    func keepAliveReusesTheConnection() throws {
        let server = try Self.echoServer()
        defer { server.stop() }
        let transport = CurlTransport()
        var connections: Set<Int> = []
        for index in 0..<5 {
            let method = index.isMultiple(of: 2) ? "GET" : "POST"
            let body: Data? = method == "POST" ? Data("{}".utf8) : nil
            let response = try transport.send(HTTPRequest(method: method, url: url(server, "/r\(index)"), body: body))
            connections.insert(try Echo(response).connection)
        }
        #expect(server.requestCount == 5)
        #expect(connections.count == 1)
        #expect(transport.idleHandleCount == 1)
    }

    @Test("plain http:// to a remote host is refused before anything is sent")
    func plainHTTPToRemoteHostIsRefused() throws {
        let transport = CurlTransport()
        let request = HTTPRequest(
            method: "GET", url: try #require(URL(string: "http://example.com/v1.0/me?code=secret")))
        let error = try #require(throws: CurlError.self) { try transport.send(request) }
        #expect(error == CurlError.insecureURL("example.com"))
        #expect(error.code == .insecureURL)
        #expect(error.description.contains("example.com"))
        #expect(error.description.contains("clear text"))
        #expect(!error.description.contains("secret"))
        #expect(!error.isConnectionFailure)

        let lookalike = HTTPRequest(method: "GET", url: try #require(URL(string: "http://127.0.0.1.example.com/")))
        #expect(throws: CurlError.insecureURL("127.0.0.1.example.com")) { try transport.send(lookalike) }
        let ftp = HTTPRequest(method: "GET", url: try #require(URL(string: "ftp://127.0.0.1/")))
        #expect(throws: CurlError.self) { try transport.send(ftp) }
    }

    @Test(
        "loopback hosts are recognised without resolving names",
        arguments: [
            ("127.0.0.1", true), ("127.255.0.9", true), ("::1", true), ("localhost", true), ("LocalHost", true),
            ("::ffff:127.0.0.1", true), ("128.0.0.1", false), ("10.0.0.1", false), ("127.0.0.1.example.com", false),
            ("localhost.example.com", false), ("::2", false), ("example.com", false), ("", false),
        ])
    func loopbackHosts(host: String, expected: Bool) {
        #expect(CurlTransport.isLoopback(host) == expected)
    }

    @Test("a body past maxResponseBytes stops the transfer with responseTooLarge")
    func responseCap() throws {
        let big = Data(repeating: UInt8(ascii: "a"), count: 5000)
        var chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        for _ in 0..<5 {
            chunked += "3e8\r\n" + String(repeating: "b", count: 1000) + "\r\n"
        }
        chunked += "0\r\n\r\n"
        let chunkedBytes = chunked
        let server = try LoopbackHTTPServer { request in
            request.path == "/chunked"
                ? .raw(Data(chunkedBytes.utf8)) : .respond(LoopbackHTTPServer.Response(status: 200, body: big))
        }
        defer { server.stop() }
        let transport = CurlTransport(maxResponseBytes: 1000)
        // With a Content-Length, libcurl refuses up front; without one, the write callback stops it.
        for path in ["/sized?token=abc", "/chunked"] {
            let error = try #require(throws: CurlError.self) {
                try transport.send(HTTPRequest(method: "GET", url: url(server, path)))
            }
            #expect(error.code == .responseTooLarge)
            #expect(error.host == "127.0.0.1")
            #expect(!error.description.contains("token=abc"))
        }
        // The same transport still answers a body within the limit.
        let roomy = CurlTransport(maxResponseBytes: 5000)
        #expect(try roomy.send(HTTPRequest(method: "GET", url: url(server, "/sized"))).body == big)
    }

    @Test("a connection closed mid-body or without a reply is a connection failure, not a hang")
    func droppedConnections() throws {
        let server = try LoopbackHTTPServer { request in
            request.path == "/truncated"
                ? .truncated(.text(200, String(repeating: "z", count: 1000)), keepingBytes: 100) : .closeConnection
        }
        defer { server.stop() }
        let transport = CurlTransport(defaultTimeout: .seconds(5))
        let started = Date()
        for path in ["/truncated", "/nothing"] {
            let error = try #require(throws: CurlError.self) {
                try transport.send(HTTPRequest(method: "GET", url: url(server, path)))
            }
            #expect(error.code == .connectionDropped, "\(path): \(error)")
            #expect(error.isConnectionFailure)
        }
        // Well under the 5 s timeout: the drop is noticed, not waited out (generous for a loaded machine).
        #expect(Date().timeIntervalSince(started) < 4)
    }

    @Test("a refused connection is couldNotConnect")
    func refusedConnection() throws {
        let server = try LoopbackHTTPServer { _ in .respond(.text(200, "")) }
        let address = try url(server, "/")
        server.stop()
        let error = try #require(throws: CurlError.self) {
            try CurlTransport().send(HTTPRequest(method: "GET", url: address))
        }
        #expect(error.code == .couldNotConnect)
        #expect(error.isConnectionFailure)
        #expect(error.curlCode == 7)
    }

    @Test("a slow server hits the request's total timeout")
    func totalTimeout() throws {
        let server = try LoopbackHTTPServer { _ in .delayed(.seconds(2), .text(200, "late")) }
        defer { server.stop() }
        let started = Date()
        let error = try #require(throws: CurlError.self) {
            try CurlTransport().send(HTTPRequest(method: "GET", url: url(server, "/"), timeout: .milliseconds(200)))
        }
        let elapsed = Date().timeIntervalSince(started)
        #expect(error.code == .timedOut)
        #expect(error.isConnectionFailure)
        // The error itself proves the timeout fired (the server would answer after 2 s); it must not fire early.
        #expect(elapsed >= 0.19)
    }

    @Test("cancelling ends a transfer held by the server within about a second, and refuses later requests")
    func cancellationEndsAHeldTransfer() throws {
        let server = try LoopbackHTTPServer { _ in .delayed(.seconds(60), .text(200, "late")) }
        defer { server.stop() }
        let cancellation = RequestCancellation()
        let transport = CurlTransport(cancellation: cancellation)
        let request = HTTPRequest(method: "GET", url: try url(server, "/"))
        let cancelled = Date()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(300)) { cancellation.cancel() }
        let error = try #require(throws: RequestCancelled.self) { try transport.send(request) }
        let elapsed = Date().timeIntervalSince(cancelled)
        #expect(error == RequestCancelled(host: "127.0.0.1"))
        #expect(elapsed >= 0.29 && elapsed < 1.8, "ended after \(elapsed) s")
        let sent = server.requestCount
        #expect(throws: RequestCancelled.self) { try transport.send(request) }
        #expect(server.requestCount == sent, "nothing is sent once cancelled")
    }

    @Test("a cancelled retry wait returns at once")
    func cancellationEndsASleep() {
        let cancellation = RequestCancellation()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { cancellation.cancel() }
        let started = Date()
        cancellation.sleep(for: .seconds(30))
        #expect(Date().timeIntervalSince(started) < 5)
        let again = Date()
        cancellation.sleep(for: .seconds(30))
        #expect(Date().timeIntervalSince(again) < 0.5)
    }

    @Test("https:// to a server that does not speak TLS fails as a TLS error, not as plain HTTP")
    func httpsToPlainServerIsTLSError() throws {
        let port = try PlainTextAnswerer.start(answer: "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        let address = try #require(URL(string: "https://127.0.0.1:\(port)/"))
        let error = try #require(throws: CurlError.self) {
            try CurlTransport().send(HTTPRequest(method: "GET", url: address, timeout: .seconds(5)))
        }
        #expect(error.code == .tls)
        #expect(error.curlCode == 35)
        #expect(!error.isConnectionFailure)
    }

    @Test("a header value with a line break is refused and nothing is sent")
    func headerInjectionIsRefused() throws {
        let server = try Self.echoServer()
        defer { server.stop() }
        let request = HTTPRequest(method: "GET", url: try url(server, "/"), headers: [("X-A", "1\r\nX-Evil: 2")])
        let error = try #require(throws: CurlError.self) { try CurlTransport().send(request) }
        #expect(error.code == .invalidRequest)
        #expect(!error.description.contains("X-Evil"))
        #expect(server.requestCount == 0)
    }

    @Test("eight threads share one transport and every request succeeds")
    func concurrentSends() throws {
        let server = try Self.echoServer()
        defer { server.stop() }
        let transport = CurlTransport()
        let results = CurlTestOutcomes()
        let group = DispatchGroup()
        let base = server.baseURL
        for thread in 0..<8 {
            group.enter()
            let worker = Thread {
                for index in 0..<5 {
                    let path = "/t\(thread)/r\(index)"
                    do {
                        let url = try #require(URL(string: base + path))
                        let response = try transport.send(
                            HTTPRequest(method: "POST", url: url, body: Data(path.utf8)))
                        let echo = try Echo(response)
                        results.record(echo.target == path && echo.body == path && response.status == 201)
                    } catch {
                        results.record(false)
                    }
                }
                group.leave()
            }
            worker.start()
        }
        #expect(group.wait(timeout: .now() + 20) == .success)
        #expect(results.outcomes.count == 40)
        #expect(results.outcomes.allSatisfy { $0 })
        #expect(transport.idleHandleCount <= CurlTransport.maxIdleHandles)
    }
}

/// Outcomes collected from worker threads.
final class CurlTestOutcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Bool] = []

    func record(_ value: Bool) {
        lock.lock()
        values.append(value)
        lock.unlock()
    }

    var outcomes: [Bool] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
}

/// Accepts one connection on 127.0.0.1, writes a fixed answer at once (before reading anything), closes.
enum PlainTextAnswerer {
    struct SocketFailure: Error {}

    static func start(answer: String) throws -> Int {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw SocketFailure() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard ready else {
            close(listener)
            throw SocketFailure()
        }
        let bytes = Array(answer.utf8)
        Thread {
            let connection = accept(listener, nil, nil)
            if connection >= 0 {
                _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(connection)
            }
            close(listener)
        }.start()
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
