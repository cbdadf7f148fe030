import Foundation
import GraphStandIn
import TestSupport
import Testing

/// `graph-ics serve` through the built binary against the stand-in: the HTTP contract on a free
/// loopback port, refreshes, Graph failing and recovering, feeds.json changing under a running serve,
/// signals, and several mailboxes.
@Suite(.serialized) struct ServeCommandTests {
    /// A signed-in mailbox with one event in the next days, and the state folder of serve.
    final class Fixture {
        let account: StandInAccount
        var environment: [String: String]
        var lunchID = ""

        init() throws {
            account = try StandInAccount()
            account.standIn.addUser(displayName: "Ada Lovelace", mail: "ada@contoso.example", mailboxTimeZone: "UTC")
            environment = try account.savedSignInEnvironment()
            environment["GRAPH_ICS_STATE_DIR"] = account.folder.appendingPathComponent("state").path
            lunchID = try addEvent("Lunch with Grace", daysAhead: 2)
        }

        @discardableResult
        func addEvent(_ subject: String, daysAhead: Int, user: String? = nil) throws -> String {
            let day = ISO8601DateFormatter.string(
                from: Date().addingTimeInterval(TimeInterval(daysAhead * 86_400)), timeZone: .gmt,
                formatOptions: [.withFullDate])
            return try account.standIn.addEvent(
                [
                    "subject": subject, "iCalUId": "uid-\(subject.hashValue)",
                    "start": ["dateTime": "\(day)T10:00:00", "timeZone": "UTC"],
                    "end": ["dateTime": "\(day)T11:00:00", "timeZone": "UTC"],
                ], user: user)
        }

        @discardableResult
        func feed(_ arguments: [String]) throws -> ProcessResult {
            let result = try account.run(["feed"] + arguments, environment: environment)
            #expect(result.status == 0, "feed \(arguments): \(result.err)")
            return result
        }

        /// The path of a feed (`/<secret>/<NAME>.ics`), from `feed list --json`.
        func path(of name: String) throws -> String {
            let result = try account.run(["feed", "list", "--json"], environment: environment)
            let feeds = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
            let url = try #require(feeds.first { $0["name"] as? String == name }?["url"] as? String)
            let parts = url.split(separator: "/")
            return "/" + parts.suffix(2).joined(separator: "/")
        }

        func serve(_ arguments: [String] = ["--refresh", "1"]) throws -> ServeProcess {
            try ServeProcess(
                ["--listen", "127.0.0.1:0"] + arguments, environment: environment, in: account.folder)
        }
    }

    /// Asks until `accept` takes the answer (a feed's first refresh runs after serve starts listening).
    static func poll(
        _ serve: ServeProcess, _ path: String, headers: [(String, String)] = [], timeout: Double = 30,
        until accept: (RawHTTPConnection.Response) -> Bool
    ) throws -> RawHTTPConnection.Response {
        let deadline = Date().addingTimeInterval(timeout)
        var last = try serve.request(path, headers: headers)
        while !accept(last) && Date() < deadline {
            usleep(100_000)
            last = try serve.request(path, headers: headers)
        }
        return last
    }

    static func text(_ response: RawHTTPConnection.Response) -> String {
        String(decoding: response.body, as: UTF8.self)
    }

    @Test func servesAFeedWithTheHTTPContract() throws {
        let fixture = try Fixture()
        try fixture.feed(["add", "work", "--detail", "full"])
        let path = try fixture.path(of: "work")
        let secret = String(path.split(separator: "/")[0])
        let serve = try fixture.serve()
        #expect(serve.stderr.contains("graph-ics serve: listening on \(serve.url) (1 feeds)"))
        let full = try Self.poll(serve, path, headers: [("Accept-Encoding", "identity")]) { $0.status == 200 }
        #expect(full.status == 200)
        #expect(
            Self.text(full).hasPrefix("BEGIN:VCALENDAR\r\n") && Self.text(full).contains("SUMMARY:Lunch with Grace"))
        #expect(full.header("Content-Type") == "text/calendar; charset=utf-8")
        #expect(full.header("Cache-Control") == "private, max-age=1")
        let etag = try #require(full.header("ETag"))
        #expect(etag.wholeMatch(of: /"[0-9a-f]{64}"/) != nil)
        #expect(full.header("Last-Modified")?.hasSuffix(" GMT") == true)
        #expect(full.header("Content-Encoding") == nil)

        let gzip = try serve.request(path, headers: [("Accept-Encoding", "gzip")])
        #expect(gzip.status == 200 && gzip.header("Content-Encoding") == "gzip")
        #expect(Array(gzip.body.prefix(2)) == [0x1F, 0x8B])
        #expect(gzip.header("ETag") == etag && gzip.header("Vary") == "Accept-Encoding")

        let head = try serve.request(path, method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty && head.header("ETag") == etag)
        #expect(head.header("Content-Length") == String(full.body.count))

        let notModified = try serve.request(path, headers: [("If-None-Match", etag)])
        #expect(notModified.status == 304 && notModified.body.isEmpty)
        let post = try serve.request(path, method: "POST")
        #expect(post.status == 405 && post.header("Allow") == "GET, HEAD")
        let wrongSecret = try serve.request("/\(String(repeating: "0", count: 64))/work.ics")
        let dotDot = try serve.request("/\(secret)/../\(secret)/work.ics")
        #expect(wrongSecret.status == 404 && dotDot.status == 404 && wrongSecret.body == dotDot.body)
        let health = try serve.request("/healthz")
        let object = try #require(try JSONSerialization.jsonObject(with: health.body) as? [String: Any])
        #expect(object["status"] as? String == "ok")

        #expect(serve.stderr.contains("GET /…/work.ics 200 "))
        #expect(serve.stderr.contains("POST /…/work.ics 405 "))
        #expect(!serve.stderr.contains(secret), "the secret never reaches the log")
        let listed = try fixture.account.run(["feed", "list", "--json"], environment: fixture.environment)
        #expect(listed.out.contains(serve.url + path), "feed list shows the address serve listens on")
        serve.signal(SIGTERM)
        #expect(serve.waitForExit() == 0)
    }

    @Test func aChangeInOutlookAppearsAfterARefreshAndNoChangeKeepsTheETag() throws {
        let fixture = try Fixture()
        try fixture.feed(["add", "work"])
        let path = try fixture.path(of: "work")
        let serve = try fixture.serve(["--refresh", "1", "-v"])
        let first = try Self.poll(serve, path) { $0.status == 200 }
        let etag = try #require(first.header("ETag"))
        try serve.waitForLine("feed work: unchanged (", timeout: 30)
        let line = try serve.waitForLine("feed work: unchanged (1 requests, ")
        #expect(line.hasSuffix(" ms CPU)"))
        let same = try serve.request(path)
        #expect(same.header("ETag") == etag && same.body == first.body)

        _ = try fixture.account.standIn.changeEvent(id: fixture.lunchID, ["subject": "Lunch moved"])
        let changed = try Self.poll(serve, path) { Self.text($0).contains("SUMMARY:Lunch moved") }
        #expect(Self.text(changed).contains("SUMMARY:Lunch moved"))
        #expect(changed.header("ETag") != etag)
        serve.signal(SIGTERM)
        #expect(serve.waitForExit() == 0)
    }

    @Test func graphFailingServesTheLastBodyWithAWarningAndRecovers() throws {
        let fixture = try Fixture()
        try fixture.feed(["add", "work"])
        let path = try fixture.path(of: "work")
        let serve = try fixture.serve()
        let good = try Self.poll(serve, path) { $0.status == 200 }
        let unavailable = LoopbackHTTPServer.Response(
            status: 503, headers: [("Retry-After", "0.05"), ("Content-Type", "application/json")],
            body: Data(#"{"error":{"code":"ServiceUnavailable","message":"Try later."}}"#.utf8))
        fixture.account.standIn.injectFault(.respond(unavailable), forPathContaining: "calendarView", times: 30)
        let stale = try Self.poll(serve, path) { $0.header("Warning") != nil }
        #expect(stale.status == 200 && stale.body == good.body)
        #expect(stale.header("Warning") == "110 - \"Response is Stale\"")
        #expect(stale.header("Age").flatMap(Int.init) != nil)
        let health = try serve.request("/healthz")
        let object = try #require(try JSONSerialization.jsonObject(with: health.body) as? [String: Any])
        #expect(object["status"] as? String == "degraded")
        let feeds = try #require(object["feeds"] as? [[String: Any]])
        #expect(feeds.first?["lastError"] is String)

        let recovered = try Self.poll(serve, path, timeout: 60) { $0.header("Warning") == nil }
        #expect(recovered.header("Warning") == nil && recovered.body == good.body)
        try serve.waitForLine("feed work: refreshed again")
        #expect(serve.stderrLines.filter { $0.contains("feed work: refresh failed") }.count == 1, "logged once")
        serve.signal(SIGTERM)
        #expect(serve.waitForExit() == 0)
    }

    @Test func aRestartWhileGraphIsDownServesTheCachedBodyAtOnce() throws {
        let fixture = try Fixture()
        try fixture.feed(["add", "work", "--detail", "full"])
        let path = try fixture.path(of: "work")
        let first = try fixture.serve()
        let good = try Self.poll(first, path) { $0.status == 200 }
        first.signal(SIGTERM)
        #expect(first.waitForExit() == 0)

        let unavailable = LoopbackHTTPServer.Response(
            status: 503, headers: [("Retry-After", "0.05"), ("Content-Type", "application/json")],
            body: Data(#"{"error":{"code":"ServiceUnavailable","message":"Try later."}}"#.utf8))
        fixture.account.standIn.injectFault(.respond(unavailable), forPathContaining: "/v1.0/", times: 100_000)
        let second = try fixture.serve()
        let cached = try Self.poll(second, path, timeout: 10) { $0.status == 200 }
        #expect(cached.status == 200 && cached.body == good.body && cached.header("ETag") == good.header("ETag"))
        let stale = try Self.poll(second, path, timeout: 30) { $0.header("Warning") != nil }
        #expect(stale.header("Warning") == "110 - \"Response is Stale\"" && stale.body == good.body)
        second.signal(SIGTERM)
        #expect(second.waitForExit() == 0)
    }

    @Test func feedChangesTakeEffectInARunningServe() throws {
        let fixture = try Fixture()
        try fixture.feed(["add", "work"])
        let old = try fixture.path(of: "work")
        let serve = try fixture.serve()
        _ = try Self.poll(serve, old) { $0.status == 200 }
        try fixture.feed(["rotate", "work"])
        let new = try fixture.path(of: "work")
        let gone = try Self.poll(serve, old, timeout: 5) { $0.status == 404 }
        #expect(gone.status == 404, "the old URL stops working within seconds")
        #expect(try serve.request(new).status == 200, "the body is kept across a rotation")

        try fixture.feed(["add", "home", "--detail", "busy"])
        let home = try Self.poll(serve, try fixture.path(of: "home"), timeout: 10) { $0.status == 200 }
        #expect(Self.text(home).contains("SUMMARY:Busy") && !Self.text(home).contains("Lunch"))
        try fixture.feed(["remove", "home"])
        let removed = try Self.poll(serve, try fixture.path(of: "work"), timeout: 1) { _ in true }
        #expect(removed.status == 200)
        serve.signal(SIGTERM)
        #expect(serve.waitForExit() == 0)
    }

    @Test func aDamagedFeedsJSONStopsAStartButNotARunningServe() throws {
        let fixture = try Fixture()
        try fixture.feed(["add", "work"])
        let path = try fixture.path(of: "work")
        let file = fixture.account.configDirectory.appendingPathComponent("feeds.json")
        let serve = try fixture.serve()
        _ = try Self.poll(serve, path) { $0.status == 200 }
        let before = serve.stderrLines.count
        try Data("{\"feeds\": [".utf8).write(to: file)
        let warning = try serve.waitForLine("warning: ", after: before, timeout: 10)
        #expect(warning.contains("feeds.json") && warning.contains("served as they were"))
        #expect(try serve.request(path).status == 200, "the feeds are served as they were")
        serve.signal(SIGTERM)
        #expect(serve.waitForExit() == 0)

        let start = try fixture.account.run(
            ["serve", "--listen", "127.0.0.1:0"], environment: fixture.environment, timeout: 30)
        #expect(start.status == 74, "\(start.err)")
        #expect(start.err.contains("feeds.json"))
    }

    @Test func sighupReReadsFeedsJSONAndKeepsServing() throws {
        let fixture = try Fixture()
        try fixture.feed(["add", "work"])
        let serve = try fixture.serve()
        let before = serve.stderrLines.count
        serve.signal(SIGHUP)
        try serve.waitForLine("graph-ics serve: read feeds.json again (1 feeds)", after: before, timeout: 5)
        #expect(serve.process.isRunning)
        #expect(try serve.request("/healthz").status == 200)
        serve.signal(SIGINT)
        #expect(serve.waitForExit() == 0)
    }

    /// 400 meetings in the first nine days of December 2026, each with `agenda` as its body: a feed larger
    /// than the socket buffers, so that a response is still under way when serve is stopped.
    static func addLongMeetings(to fixture: Fixture, agenda: String) throws {
        for day in 0..<400 {
            try fixture.account.standIn.addEvent([
                "subject": "Meeting \(day)", "body": ["contentType": "text", "content": agenda],
                "start": ["dateTime": "2026-12-0\(1 + day % 9)T10:00:00", "timeZone": "UTC"],
                "end": ["dateTime": "2026-12-0\(1 + day % 9)T11:00:00", "timeZone": "UTC"],
            ])
        }
    }

    @Test func sigtermLetsAResponseUnderWayFinishThenExits0() throws {
        let fixture = try Fixture()
        try Self.addLongMeetings(to: fixture, agenda: String(repeating: "A long agenda. ", count: 400))
        try fixture.feed(["add", "work", "--detail", "full"])
        let path = try fixture.path(of: "work")
        let serve = try fixture.serve()
        let full = try Self.poll(serve, path, headers: [("Accept-Encoding", "identity")]) { $0.status == 200 }
        #expect(full.body.count > 2_000_000, "a body larger than the socket buffers")
        let connection = try RawHTTPConnection(port: serve.port, timeout: 20, receiveBuffer: 4096)
        try connection.send(
            RawHTTPConnection.head(method: "GET", path: path, headers: [("Accept-Encoding", "identity")]))
        usleep(300_000)
        serve.signal(SIGTERM)
        usleep(300_000)
        let answer = try connection.readResponse()
        #expect(answer.status == 200 && answer.body == full.body)
        #expect(serve.waitForExit() == 0)
        #expect(serve.stderr.contains("graph-ics serve: stopped"))
    }

    @Test func aSecondSigtermWhileAResponseIsStuckEndsServeAtOnce() throws {
        let fixture = try Fixture()
        try Self.addLongMeetings(to: fixture, agenda: String(repeating: "A very long agenda. ", count: 800))
        try fixture.feed(["add", "work", "--detail", "full"])
        let path = try fixture.path(of: "work")
        let serve = try fixture.serve()
        let full = try Self.poll(serve, path, headers: [("Accept-Encoding", "identity")]) { $0.status == 200 }
        #expect(full.body.count > 6_000_000, "a body larger than the socket buffers of both sides")
        let reader = try RawHTTPConnection(port: serve.port, timeout: 20, receiveBuffer: 4096)
        try reader.send(RawHTTPConnection.head(method: "GET", path: path, headers: [("Accept-Encoding", "identity")]))
        usleep(300_000)
        serve.signal(SIGTERM)
        usleep(500_000)
        #expect(serve.process.isRunning, "serve waits for the response its client is not reading")
        serve.signal(SIGTERM)
        #expect(serve.waitForExit(timeout: 5) == 128 + SIGTERM)
    }

    @Test func sigtermWhileARefreshIsHeldInGraphCancelsItAndExits0WithinTwoSeconds() throws {
        let fixture = try Fixture()
        try fixture.feed(["add", "work"])
        let path = try fixture.path(of: "work")
        let serve = try fixture.serve()
        _ = try Self.poll(serve, path) { $0.status == 200 }
        let standIn = fixture.account.standIn
        let before = standIn.requests.count
        standIn.injectFault(
            .delayed(.seconds(60), .text(200, #"{"value":[]}"#)), forPathContaining: "calendarView", times: 1)
        let deadline = Date().addingTimeInterval(30)
        while !standIn.requests.dropFirst(before).contains(where: { $0.path.contains("calendarView") })
            && Date() < deadline
        {
            usleep(20_000)
        }
        #expect(standIn.requests.dropFirst(before).contains { $0.path.contains("calendarView") }, "a refresh is held")
        usleep(300_000)
        let signalled = Date()
        serve.signal(SIGTERM)
        let status = serve.waitForExit(timeout: 10)
        let seconds = Date().timeIntervalSince(signalled)
        #expect(status == 0)
        #expect(seconds < 2, "serve took \(seconds) s to stop")
        #expect(serve.stderr.contains("graph-ics serve: stopped"))
        #expect(!serve.stderr.contains("refresh failed") && !serve.stderr.contains("cannot be read"), "\(serve.stderr)")
    }

    /// The machine's host name (the kernel's, as gethostname gives it), as serve names it in feed URLs when it
    /// listens on every address.
    static func machineName() -> String {
        let name = (try? String(contentsOfFile: "/proc/sys/kernel/hostname", encoding: .utf8)) ?? ""
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? "localhost" : trimmed
    }

    @Test func listeningBeyondLoopbackWithoutTLSWarnsAndFeedListNamesTheMachine() throws {
        let fixture = try Fixture()
        try fixture.feed(["add", "work"])
        let serve = try ServeProcess(
            ["--listen", "0.0.0.0:0"], environment: fixture.environment, in: fixture.account.folder)
        let warning = try serve.waitForLine("warning: ")
        #expect(warning.contains("without TLS") && warning.contains("clear text") && warning.contains("reverse proxy"))
        let note = try serve.waitForLine("note: listening on every address")
        #expect(note.contains("--base-url"), "\(note)")
        let listed = try fixture.account.run(["feed", "list", "--json"], environment: fixture.environment)
        #expect(listed.out.contains("\"http://\(Self.machineName()):\(serve.port)/"), "\(listed.out)")
        #expect(!listed.out.contains("0.0.0.0"), "\(listed.out)")
        serve.signal(SIGTERM)
        #expect(serve.waitForExit() == 0)
    }

    @Test func withTLSServeListensOnHTTPSWithoutTheWarningAndFeedListShowsHTTPS() throws {
        let fixture = try Fixture()
        try fixture.feed(["add", "work"])
        let openssl = try #require(
            ["/usr/bin/openssl", "/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "openssl is needed to make the test's certificate: install it (scripts/setup does)")
        let curl = try #require(
            ["/usr/bin/curl", "/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "curl is needed as the HTTPS client")
        let key = fixture.account.folder.appendingPathComponent("key.pem").path
        let certificate = fixture.account.folder.appendingPathComponent("cert.pem").path
        let made = try runProgram(
            openssl,
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "1",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ])
        try #require(made.status == 0, "openssl req failed: \(made.err)")
        let serve = try ServeProcess(
            ["--listen", "0.0.0.0:0", "--tls-cert", certificate, "--tls-key", key, "--refresh", "1"],
            environment: fixture.environment, in: fixture.account.folder)
        #expect(serve.url.hasPrefix("https://0.0.0.0:"))
        #expect(!serve.stderr.contains("warning:"), "TLS: no clear-text warning")
        let path = try fixture.path(of: "work")
        let deadline = Date().addingTimeInterval(30)
        var answer: ProgramRun?
        while Date() < deadline && answer?.out.hasPrefix("HTTP/1.1 200") != true {
            answer = try runProgram(
                curl,
                [
                    "--silent", "--show-error", "--dump-header", "-", "--output", "/dev/null", "--cacert", certificate,
                    "https://127.0.0.1:\(serve.port)\(path)",
                ])
            usleep(100_000)
        }
        #expect(answer?.out.hasPrefix("HTTP/1.1 200") == true, "\(answer?.err ?? "")")
        let listed = try fixture.account.run(["feed", "list", "--json"], environment: fixture.environment)
        #expect(listed.out.contains("https://\(Self.machineName()):\(serve.port)\(path)"), "\(listed.out)")
        serve.signal(SIGTERM)
        #expect(serve.waitForExit() == 0)
    }

    @Test func anAddressInUseExits69() throws {
        let fixture = try Fixture()
        let first = try fixture.serve()
        let second = try fixture.account.run(
            ["serve", "--listen", "127.0.0.1:\(first.port)"], environment: fixture.environment)
        #expect(second.status == 69, "\(second.err)")
        #expect(second.err.contains("127.0.0.1:\(first.port)"))
        first.signal(SIGTERM)
        #expect(first.waitForExit() == 0)
    }

    @Test func aMissingTLSFileExits66BeforeListening() throws {
        let fixture = try Fixture()
        let result = try fixture.account.run(
            ["serve", "--listen", "127.0.0.1:0", "--tls-cert", "missing.pem", "--tls-key", "missing-key.pem"],
            environment: fixture.environment, timeout: 30)
        #expect(result.status == 66, "\(result.err)")
        #expect(result.errLines == ["error: missing.pem: the TLS certificate cannot be read"])
    }

    @Test func notSignedInExits77() throws {
        let account = try StandInAccount()
        let added = try account.run(["feed", "add", "work"], environment: account.baseEnvironment)
        #expect(added.status == 0)
        var environment = account.baseEnvironment
        environment["GRAPH_ICS_STATE_DIR"] = account.folder.appendingPathComponent("state").path
        let result = try account.run(["serve", "--listen", "127.0.0.1:0"], environment: environment, timeout: 30)
        #expect(result.status == 77, "\(result.err)")
    }

    @Test func eachMailboxIsRefreshedOnItsOwnAndOneFailingLeavesTheOtherServed() throws {
        let fixture = try Fixture()
        let standIn = fixture.account.standIn
        standIn.addUser(displayName: "Ann", mail: "ann@contoso.example")
        standIn.addUser(displayName: "Bob", mail: "bob@contoso.example")
        try fixture.addEvent("Ann's review", daysAhead: 1, user: "ann@contoso.example")
        try fixture.addEvent("Bob's review", daysAhead: 1, user: "bob@contoso.example")
        standIn.registerApp(
            clientID: fixture.account.clientID, secret: "s3cr3t", roles: ["Calendars.Read", "MailboxSettings.Read"])
        fixture.environment["GRAPH_ICS_CLIENT_SECRET"] = "s3cr3t"
        fixture.environment["GRAPH_ICS_TENANT"] = "contoso.example"
        try fixture.feed(["add", "ann", "--user", "ann@contoso.example", "--detail", "full"])
        try fixture.feed(["add", "bob", "--user", "bob@contoso.example", "--detail", "full"])
        let broken = LoopbackHTTPServer.Response(
            status: 500, headers: [("Content-Type", "application/json")],
            body: Data(#"{"error":{"code":"generalException","message":"Broken."}}"#.utf8))
        standIn.injectFault(.respond(broken), forPathContaining: "bob@contoso.example", times: 10_000)
        let serve = try fixture.serve()
        let ann = try Self.poll(serve, try fixture.path(of: "ann")) { $0.status == 200 }
        #expect(Self.text(ann).contains("SUMMARY:Ann's review") && !Self.text(ann).contains("Bob"))
        #expect(try serve.request(try fixture.path(of: "bob")).status == 503)
        try serve.waitForLine("feed bob: cannot be read")
        let health = try serve.request("/healthz")
        let object = try #require(try JSONSerialization.jsonObject(with: health.body) as? [String: Any])
        let feeds = try #require(object["feeds"] as? [[String: Any]])
        #expect(feeds.count == 2 && feeds[0]["lastError"] is NSNull && feeds[1]["lastError"] is String)
        serve.signal(SIGTERM)
        #expect(serve.waitForExit() == 0)
    }
}
