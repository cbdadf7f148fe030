import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A `graph-ics serve` started by a test: its standard error read line by line as it comes (the access
/// log, refresh lines), its address from the `listening on URL` line, and plain HTTP/1.1 requests to it
/// over a socket of the test's own, so that every byte of the answer is seen (no client decodes gzip or
/// drops a HEAD's headers).
final class ServeProcess: @unchecked Sendable {
    let process = Process()
    private let errors = Locked(Data())
    private let reader = DispatchGroup()
    let port: UInt16
    let url: String

    init(_ arguments: [String], environment extra: [String: String], in directory: URL, timeout: Double = 60) throws {
        guard let binary = GraphICSBinary.url else {
            throw ServeTimedOut(description: "no graph-ics executable next to the test bundle")
        }
        process.executableURL = binary
        process.arguments = ["serve"] + arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GRAPH_ICS_") }
        environment["NO_COLOR"] = "1"
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let errorPipe = Pipe()
        process.standardError = errorPipe
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        let launchError = Locked<String?>(nil)
        onThread(blocking: [], exactly: true) { [process] in
            do { try process.run() } catch { launchError.set("\(error)") }
        }
        if let failure = launchError.value { throw ServeTimedOut(description: "serve did not start: \(failure)") }
        let handle = errorPipe.fileHandleForReading
        let errors = self.errors
        DispatchQueue.global().async(group: reader) {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return }
                errors.mutate { $0.append(chunk) }
            }
        }
        let line = try Self.wait(for: "listening on ", in: errors, timeout: timeout, process: process)
        let address = try #require(line.split(separator: " ").first { $0.hasPrefix("http") })
        url = String(address)
        port = try #require(address.split(separator: ":").last.flatMap { UInt16($0) })
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// What serve wrote on standard error so far.
    var stderr: String { String(decoding: errors.value, as: UTF8.self) }
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }

    /// Waits until a line of standard error written after `skipping` lines contains `text`; returns it.
    @discardableResult
    func waitForLine(_ text: String, after skipping: Int = 0, timeout: Double = 30) throws -> String {
        try Self.wait(for: text, in: errors, after: skipping, timeout: timeout, process: process)
    }

    private static func wait(
        for text: String, in errors: Locked<Data>, after skipping: Int = 0, timeout: Double, process: Process
    ) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let lines = String(decoding: errors.value, as: UTF8.self).split(separator: "\n").dropFirst(skipping)
            if let line = lines.first(where: { $0.contains(text) }) { return String(line) }
            if !process.isRunning && lines.isEmpty == false && !lines.contains(where: { $0.contains(text) }) {
                let all = String(decoding: errors.value, as: UTF8.self)
                throw ServeTimedOut(description: "serve ended without '\(text)': \(all)")
            }
            usleep(20_000)
        }
        throw ServeTimedOut(
            description: "no '\(text)' from serve in \(timeout) s: \(String(decoding: errors.value, as: UTF8.self))")
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the process to end; its exit status, or nil when it is still running after `timeout`.
    func waitForExit(timeout: Double = 30) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        guard !process.isRunning else { return nil }
        _ = reader.wait(timeout: .now() + 5)
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }

    /// One request on a new connection (`Connection: close`), the whole answer read.
    func request(
        _ path: String, method: String = "GET", headers: [(String, String)] = []
    ) throws -> RawHTTPResponse {
        let connection = try RawConnection(port: port)
        try connection.send(RawConnection.head(method: method, path: path, headers: headers))
        return try connection.readResponse(head: method == "HEAD")
    }
}

struct ServeTimedOut: Error, CustomStringConvertible {
    var description: String
}

/// An HTTP answer as it came over the socket.
struct RawHTTPResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: Data

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A TCP connection to 127.0.0.1 (blocking, with a receive timeout).
final class RawConnection {
    let descriptor: Int32

    /// `receiveBuffer` makes the socket's receive buffer that small (a slow reader).
    init(port: UInt16, timeout: Int = 20, receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connected == 0 else {
            close(descriptor)
            throw ServeTimedOut(description: "cannot connect to 127.0.0.1:\(port): errno \(errno)")
        }
    }

    deinit { close(descriptor) }

    static func head(method: String, path: String, headers: [(String, String)], close: Bool = true) -> String {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if close { text += "Connection: close\r\n" }
        return text + "\r\n"
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { throw ServeTimedOut(description: "send failed: errno \(errno)") }
            sent += count
        }
    }

    /// Reads one answer: the head, then `Content-Length` bytes (none for HEAD and 304).
    func readResponse(head isHead: Bool = false) throws -> RawHTTPResponse {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        func more() throws {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw ServeTimedOut(description: "the connection ended (\(count), errno \(errno))") }
            data.append(contentsOf: buffer[0..<count])
        }
        let separator = Data("\r\n\r\n".utf8)
        while data.range(of: separator) == nil { try more() }
        let end = try #require(data.range(of: separator))
        let lines = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = try #require(lines.first?.split(separator: " ").dropFirst().first.flatMap { Int($0) })
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = RawHTTPResponse(status: status, headers: headers, body: Data())
        let length = isHead || status == 304 ? 0 : (response.header("Content-Length").flatMap { Int($0) } ?? 0)
        while data.count - end.upperBound < length { try more() }
        response.body = Data(data[end.upperBound..<(end.upperBound + length)])
        return response
    }
}
