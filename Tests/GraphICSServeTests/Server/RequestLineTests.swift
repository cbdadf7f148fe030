import Foundation
import Testing

@testable import GraphICSServe

/// The per-request text work of serve (the access log's path, the conditional headers, header names),
/// which runs on every request and so reads bytes rather than characters: each form it meets.
@Suite struct RequestLineTests {
    @Test("the access log hides every segment but the last, for plain paths and the others alike")
    func redactedPaths() {
        let cases: [(String, String)] = [
            ("/0123abcd/work.ics", "/…/work.ics"),
            ("/a/b/c", "/…/…/c"),
            ("/S/../S/work.ics", "/…/…/…/work.ics"),
            ("/healthz", "/healthz"),
            ("/", "/"),
            ("", ""),
            ("//", "/…/"),
            ("///", "/…/…/"),
            ("/a b/c", "/…/c"),
            ("/secret/caf\u{E9}.ics", "/…/caf\u{E9}.ics"),
            ("/secret/x\u{1B}[2J.ics", "/…/x\u{FFFD}[2J.ics"),
        ]
        for (path, shown) in cases {
            #expect(AccessLog.redacted(path) == shown, "\(path)")
        }
        let long = "/" + String(repeating: "s", count: 250) + "/work.ics"
        #expect(!AccessLog.redacted(long).contains("sss"))
    }

    @Test("If-None-Match: the ETag itself, a list with spaces and tabs, weak tags, *; others do not match")
    func noneMatch() {
        let etag = "\"abc\""
        #expect(RequestHeaders.noneMatch("\"abc\"", matches: etag))
        #expect(RequestHeaders.noneMatch("\"x\" ,\t\"abc\"  ", matches: etag))
        #expect(RequestHeaders.noneMatch("W/\"abc\"", matches: etag))
        #expect(RequestHeaders.noneMatch(" * ", matches: etag))
        #expect(!RequestHeaders.noneMatch("\"abcd\", \"ab\"", matches: etag))
        #expect(!RequestHeaders.noneMatch("", matches: etag))
    }

    @Test("Accept-Encoding with spaces, tabs and q-values")
    func acceptsGzip() {
        #expect(RequestHeaders.acceptsGzip("br ,\tgzip ; q=0.5"))
        #expect(!RequestHeaders.acceptsGzip("gzip;q=0, *"))
        #expect(RequestHeaders.acceptsGzip("identity, * ;q=1"))
        #expect(!RequestHeaders.acceptsGzip("identity"))
    }

    @Test("header names compare ignoring ASCII case only")
    func headerNames() {
        let request = HTTPServerRequest(
            method: "GET", path: "/", headers: [("if-NONE-match", "\"a\""), ("X-1", "one")], remoteAddress: "")
        #expect(request.header("If-None-Match") == "\"a\"")
        #expect(request.header("x-1") == "one")
        #expect(request.header("If-None-Matc") == nil)
        #expect(!HTTPServerRequest.sameName("X-\u{41}", "x-\u{61}\u{301}"))
    }
}
