import Foundation
import Testing

@testable import GraphICSCommands

/// `graph-ics serve`'s and `graph-ics feed`'s options, in-process.
@Suite struct ServeCommandParsingTests {
    @Test func theDefaultsAreLoopback8080EveryFiveMinutesWithoutTLS() throws {
        let command = try ServeCommand.parse([])
        #expect(command.listen == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(command.refresh == 300 && command.tls == nil && command.baseURL == nil && command.zone == nil)
        #expect(command.listen.isLoopback)
    }

    @Test func theOptionsAreRead() throws {
        let command = try ServeCommand.parse([
            "--listen", "[::1]:0", "--base-url", "https://cal.example.com", "--refresh", "1", "--tls-cert", "c.pem",
            "--tls-key", "k.pem", "--tz", "Europe/Berlin", "-v",
        ])
        #expect(command.listen == ListenAddress(host: "::1", port: 0) && command.listen.isLoopback)
        #expect(command.baseURL == "https://cal.example.com" && command.refresh == 1)
        #expect(command.tls?.cert == "c.pem" && command.tls?.key == "k.pem")
        #expect(command.zone?.name == "Europe/Berlin" && command.connection.verbose)
    }

    @Test(arguments: [
        ("0.0.0.0:8080", "http://0.0.0.0:8443", false), ("127.1.2.3:80", "http://127.1.2.3:8443", true),
        ("[::]:8080", "http://[::]:8443", false), ("localhost:9", "http://127.0.0.1:8443", true),
    ])
    func addresses(text: String, url: String, loopback: Bool) throws {
        let address = try ListenAddress(text)
        #expect(address.url(scheme: "http", port: 8443) == url)
        #expect(address.isLoopback == loopback)
    }

    @Test(arguments: [
        ["--listen", "8080"], ["--listen", "example.com:80"], ["--listen", "1.2.3.4:65536"], ["--listen", "::1:80"],
        ["--listen", "[1.2.3.4]:80"], ["--refresh", "0"], ["--refresh", "86401"], ["--tls-cert", "c.pem"],
        ["--tls-key", "k.pem"], ["--user", "ann@contoso.example"], ["--base-url", "cal.example.com"], ["extra"],
    ])
    func mistakesAreUsageErrors(_ arguments: [String]) {
        #expect(throws: UsageError.self) { try ServeCommand.parse(arguments) }
    }

    @Test func feedAddDefaultsToLimitedWithoutPrivateEvents() throws {
        let command = try FeedCommand.parse(["add", "work"])
        let definition = try #require(command.definition)
        #expect(command.action == .add && definition.name == "work")
        #expect(definition.selection.detail == .limited && !definition.selection.showPrivate)
        #expect(definition.pastDays == 30 && definition.futureDays == 365)
        #expect(definition.calendar == nil && definition.user == nil)
    }

    @Test func feedAddReadsTheSelection() throws {
        let command = try FeedCommand.parse([
            "add", "team", "--detail", "busy", "--exclude-declined", "--category", "Work", "--category", "Home",
        ])
        let selection = try #require(command.definition?.selection)
        #expect(selection.detail == .busy && selection.excludeDeclined && selection.categories == ["Work", "Home"])
    }

    @Test(arguments: [
        ["list", "--exclude-cancelled"], ["rotate", "x", "--show-private"], ["remove", "x", "--future", "3"],
        ["list", "x"], ["rotate"], ["add", "a/b"], ["add", "-"],
    ])
    func feedMistakesAreUsageErrors(_ arguments: [String]) {
        #expect(throws: UsageError.self) { try FeedCommand.parse(arguments) }
    }

    @Test func theTableAlignsItsColumns() {
        #expect(FeedCommand.table([["A", "BB", "C"], ["long", "x", "y"]]) == "A     BB  C\nlong  x   y\n")
    }
}
