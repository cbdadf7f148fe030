import Foundation
import GraphStandIn
import Testing

@testable import GraphICS

/// `import https://…`: the ticket's host is asked on its own transport, with nothing of Graph's.
@Suite struct TicketDownloadTests {
    /// Made per use: a Data kept in a `static let` is reported by LeakSanitizer at exit.
    private static var ticket: Data { Data("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n".utf8) }

    @Test func aRedirectIsFollowedAndOnlyTheTransportsOwnHeadersAreSent() throws {
        let seen = LockedHeaders()
        let host = try LoopbackHTTPServer { request in
            seen.append(request.headers)
            switch request.path {
            case "/t/1": return .respond(.init(status: 302, headers: [("Location", "/files/1.ics")]))
            case "/files/1.ics": return .respond(.init(status: 200, body: Self.ticket))
            default: return .respond(.text(404, "no"))
            }
        }
        defer { host.stop() }
        #expect(try TicketDownload().fetch(host.baseURL + "/t/1") == Self.ticket)
        let names = seen.all.map { Set($0.map { $0.name.lowercased() }) }
        #expect(names.count == 2)
        #expect(
            names.allSatisfy { $0.subtracting(["host", "accept", "accept-encoding", "user-agent"]).isEmpty }, "\(names)"
        )
    }

    @Test func aRedirectToPlainHTTPElsewhereIsRefused() throws {
        let host = try LoopbackHTTPServer { _ in
            .respond(.init(status: 301, headers: [("Location", "http://tickets.example/1.ics")]))
        }
        defer { host.stop() }
        #expect(throws: TicketDownload.Failure.self) { try TicketDownload().fetch(host.baseURL + "/t/1") }
    }

    @Test func aBodyOverTheCapIsRefused() throws {
        let host = try LoopbackHTTPServer { _ in .respond(.init(status: 200, body: Data(count: 4096))) }
        defer { host.stop() }
        let small = TicketDownload(transport: CurlTransport(maxResponseBytes: 1024))
        let failure = #expect(throws: TicketDownload.Failure.self) { try small.fetch(host.baseURL + "/big.ics") }
        #expect(failure?.description.hasPrefix(host.baseURL + "/big.ics: cannot be fetched: ") == true)
        #expect(TicketDownload.maximumBytes == 16 << 20)
    }

    @Test func onlyHTTPAddressesAreURLs() {
        #expect(TicketDownload.isURL("https://tickets.example/1.ics"))
        #expect(TicketDownload.isURL("HTTP://127.0.0.1/1.ics"))
        #expect(!TicketDownload.isURL("tickets/https.ics"))
        #expect(!TicketDownload.isURL("-"))
    }
}

/// Headers a loopback server saw, from its threads.
private final class LockedHeaders: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [[(name: String, value: String)]] = []

    func append(_ headers: [(name: String, value: String)]) {
        lock.withLock { seen.append(headers) }
    }

    var all: [[(name: String, value: String)]] { lock.withLock { seen } }
}
