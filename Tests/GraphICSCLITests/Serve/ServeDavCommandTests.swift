import Foundation
import GraphStandIn
import TestSupport
import Testing

/// `graph-ics serve`'s CalDAV gateway through the built binary: a login made with `dav add` is answered at
/// `/dav/` over real HTTP, its password is never logged, a rotated password is refused without a restart, and
/// serve refuses to send logins' passwords in clear text off loopback.
@Suite(.serialized) struct ServeDavCommandTests {
    let account: StandInAccount
    var environment: [String: String]

    init() throws {
        account = try StandInAccount()
        account.standIn.addUser(displayName: "Ada Lovelace", mail: "ada@contoso.example", mailboxTimeZone: "UTC")
        environment = try account.savedSignInEnvironment()
        environment["GRAPH_ICS_STATE_DIR"] = account.folder.appendingPathComponent("state").path
    }

    /// `dav add|rotate USER --json`'s password.
    func password(_ arguments: [String]) throws -> String {
        let result = try account.run(["dav"] + arguments + ["--json"], environment: environment)
        #expect(result.status == 0, "dav \(arguments): \(result.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        return try #require(object["password"] as? String)
    }

    static func basic(_ user: String, _ password: String) -> (String, String) {
        ("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
    }

    static let principal = #"<propfind xmlns="DAV:"><prop><current-user-principal/></prop></propfind>"#

    func propfind(_ serve: ServeProcess, _ credentials: (String, String)) throws -> RawHTTPConnection.Response {
        let connection = try RawHTTPConnection(port: serve.port, timeout: 20)
        let body = Data(Self.principal.utf8)
        try connection.send(
            RawHTTPConnection.head(
                method: "PROPFIND", path: "/dav/",
                headers: [credentials, ("Depth", "0"), ("Content-Length", String(body.count))])
                + Self.principal)
        return try connection.readResponse()
    }

    @Test func aLoginIsAnsweredAtDavItsPasswordNeverLoggedAndARotatedOneRefusedAtOnce() throws {
        let first = try password(["add", "ada"])
        let serve = try ServeProcess(
            ["--listen", "127.0.0.1:0", "--refresh", "60"], environment: environment, in: account.folder)
        try serve.waitForLine("CalDAV at ")
        let answer = try propfind(serve, Self.basic("ada", first))
        #expect(answer.status == 207)
        #expect(String(decoding: answer.body, as: UTF8.self).contains("/dav/ada/"))
        #expect(try propfind(serve, Self.basic("ada", "WRONGPASSWORD234567ABCDEFG")).status == 401)

        let second = try password(["rotate", "ada"])
        #expect(try propfind(serve, Self.basic("ada", first)).status == 401)
        #expect(try propfind(serve, Self.basic("ada", second)).status == 207)
        #expect(serve.stderr.contains("login ada"))
        for secret in [first, second, Data("ada:\(first)".utf8).base64EncodedString()] {
            #expect(!serve.stderr.contains(secret))
        }
        serve.signal(SIGTERM)
        #expect(serve.waitForExit() == 0)
    }

    @Test func aBodyOverOneMiBIs413TenFailedLoginsAMinuteAre429AndSIGINTEndsServeWith0() throws {
        let secret = try password(["add", "ada"])
        let serve = try ServeProcess(["--listen", "127.0.0.1:0"], environment: environment, in: account.folder)
        try serve.waitForLine("CalDAV at ")
        let large = try RawHTTPConnection(port: serve.port, timeout: 20)
        let body = String(repeating: "x", count: (1 << 20) + 1)
        try large.send(
            RawHTTPConnection.head(
                method: "PUT", path: "/dav/ada/x/y.ics",
                headers: [Self.basic("ada", secret), ("Content-Length", String(body.utf8.count))]) + body)
        #expect(try large.readResponse().status == 413)
        for _ in 0..<10 {
            #expect(try propfind(serve, Self.basic("ada", "WRONGPASSWORD234567ABCDEFG")).status == 401)
        }
        // The eleventh try within the minute is refused whatever the password.
        #expect(try propfind(serve, Self.basic("ada", secret)).status == 429)
        serve.signal(SIGINT)
        #expect(serve.waitForExit() == 0)
    }

    @Test func withALoginServeRefusesToListenOffLoopbackWithoutTLS() throws {
        _ = try password(["add", "ada"])
        let refused = try account.run(["serve", "--listen", "0.0.0.0:0"], environment: environment, timeout: 30)
        #expect(refused.status == 64)
        #expect(refused.err.contains("--tls-cert"))
    }
}
