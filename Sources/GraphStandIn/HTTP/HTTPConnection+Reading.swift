// HTTPConnection's reading side: a buffer over recv(2), the request head up to its blank line, and bodies
// framed by Content-Length or chunked transfer coding, each bounded by LoopbackHTTPServer's limits.
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension HTTPConnection {

    /// Fills the buffer with at least one more byte; false when the peer closed or reading failed.
    func fill() -> Bool {
        if readOffset > 0 && readOffset == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readOffset = 0
        } else if readOffset > 256 * 1024 {
            buffer.removeFirst(readOffset)
            readOffset = 0
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer += chunk[0..<count]
                return true
            }
            if count < 0 && errno == EINTR { continue }
            return false
        }
    }

    /// Reads up to and including the blank line ending the head; nil when the peer closed between requests.
    func readHead() throws -> [UInt8]? {
        // Where to resume the search, relative to readOffset (fill() may move the buffer's contents).
        var searched = 0
        while true {
            if let end = findHeadEnd(from: readOffset + searched) {
                let head = Array(buffer[readOffset..<end])
                readOffset = end
                return head
            }
            if buffer.count - readOffset > LoopbackHTTPServer.maxHeadBytes {
                throw Malformed(status: 431, reason: "request head too large")
            }
            searched = max(0, buffer.count - readOffset - 3)
            let hadBytes = buffer.count > readOffset
            guard fill() else {
                if hadBytes { throw Closed() }
                return nil
            }
        }
    }

    /// The index just past `\r\n\r\n` (or a bare `\n\n`), searching from `start`.
    func findHeadEnd(from start: Int) -> Int? {
        var index = max(start, readOffset)
        while index < buffer.count {
            if buffer[index] == 0x0A {
                if index + 1 < buffer.count && buffer[index + 1] == 0x0A { return index + 2 }
                if index + 2 < buffer.count && buffer[index + 1] == 0x0D && buffer[index + 2] == 0x0A {
                    return index + 3
                }
            }
            index += 1
        }
        return nil
    }

    /// Reads exactly `count` bytes after the head.
    func readBytes(_ count: Int) throws -> [UInt8] {
        while buffer.count - readOffset < count {
            guard fill() else { throw Closed() }
        }
        let bytes = Array(buffer[readOffset..<readOffset + count])
        readOffset += count
        return bytes
    }

    /// Reads one line ending in LF (CR stripped).
    func readLine() throws -> String {
        while true {
            if let newline = buffer[readOffset...].firstIndex(of: 0x0A) {
                var lineBytes = buffer[readOffset..<newline]
                if lineBytes.last == 0x0D { lineBytes = lineBytes.dropLast() }
                readOffset = newline + 1
                guard let line = String(bytes: lineBytes, encoding: .utf8) else {
                    throw Malformed(status: 400, reason: "chunk line is not text")
                }
                return line
            }
            if buffer.count - readOffset > 8 * 1024 {
                throw Malformed(status: 400, reason: "chunk line too long")
            }
            guard fill() else { throw Closed() }
        }
    }

    func readChunkedBody() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeLine = try readLine()
            let sizeText = sizeLine.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw Malformed(status: 400, reason: "bad chunk size")
            }
            if size == 0 {
                // Trailer fields, if any, up to the blank line.
                while try !readLine().isEmpty {}
                return body
            }
            guard body.count + size <= LoopbackHTTPServer.maxBodyBytes else {
                throw Malformed(status: 413, reason: "request body too large")
            }
            body += try readBytes(size)
            guard try readLine().isEmpty else { throw Malformed(status: 400, reason: "chunk not followed by CRLF") }
        }
    }
}
