import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A `graph-ics serve` started by a test: its standard error read line by line as it comes (the access
/// log, refresh lines), its address from the `listening on URL` line, and plain HTTP/1.1 requests to it
/// over a socket of the test's own (TestSupport's ``RawHTTPConnection``), so that every byte of the answer
/// is seen (no client decodes gzip or drops a HEAD's headers).
final class ServeProcess: @unchecked Sendable {
    let process: ChildProcess
    let port: UInt16
    let url: String

    init(_ arguments: [String], environment extra: [String: String], in directory: URL, timeout: Double = 60) throws {
        guard let binary = GraphICSBinary.url else {
            throw ServeTimedOut(description: "no graph-ics executable next to the test bundle")
        }
        do {
            process = try ChildProcess(
                binary.path, ["serve"] + arguments, environment: graphICSEnvironment(extra), directory: directory.path,
                stdout: .null)
        } catch {
            throw ServeTimedOut(description: "serve did not start: \(error)")
        }
        let line = try Self.wait(for: "listening on ", after: 0, timeout: timeout, process: process)
        let address = try #require(line.split(separator: " ").first { $0.hasPrefix("http") })
        url = String(address)
        port = try #require(address.split(separator: ":").last.flatMap { UInt16($0) })
    }

    /// What serve wrote on standard error so far.
    var stderr: String { String(decoding: process.errors, as: UTF8.self) }
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }

    /// Waits until a line of standard error written after `skipping` lines contains `text`; returns it.
    @discardableResult
    func waitForLine(_ text: String, after skipping: Int = 0, timeout: Double = 30) throws -> String {
        try Self.wait(for: text, after: skipping, timeout: timeout, process: process)
    }

    private static func wait(
        for text: String, after skipping: Int, timeout: Double, process: ChildProcess
    ) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let running = process.isRunning
            let lines = String(decoding: process.errors, as: UTF8.self).split(separator: "\n").dropFirst(skipping)
            if let line = lines.first(where: { $0.contains(text) }) { return String(line) }
            if !running && lines.isEmpty == false {
                let all = String(decoding: process.errors, as: UTF8.self)
                throw ServeTimedOut(description: "serve ended without '\(text)': \(all)")
            }
            usleep(20_000)
        }
        throw ServeTimedOut(
            description: "no '\(text)' from serve in \(timeout) s: \(String(decoding: process.errors, as: UTF8.self))")
    }

    func signal(_ number: Int32) { process.signal(number) }

    /// Waits for the process to end; its exit status (128 + n for a signal), or nil when it is still running
    /// after `timeout`.
    func waitForExit(timeout: Double = 30) -> Int32? {
        process.waitForExit(timeout: timeout)?.shellStatus
    }

    /// One request on a new connection (`Connection: close`), the whole answer read.
    func request(
        _ path: String, method: String = "GET", headers: [(String, String)] = []
    ) throws -> RawHTTPConnection.Response {
        let connection = try RawHTTPConnection(port: port, timeout: 20)
        try connection.send(RawHTTPConnection.head(method: method, path: path, headers: headers))
        return try connection.readResponse(head: method == "HEAD")
    }
}

struct ServeTimedOut: Error, CustomStringConvertible {
    var description: String
}
