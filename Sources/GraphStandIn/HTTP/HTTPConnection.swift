// One accepted connection of LoopbackHTTPServer: requests read one after another (keep-alive), each
// answered with what the handler returns, until either side closes.
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads requests from one accepted socket and writes the handler's answers, until either side closes.
///
/// Ownership: the server owns the socket (it closes `fd` when `serve()` returns); the connection only reads
/// and writes it. Not thread-safe: one connection thread uses it from start to end.
final class HTTPConnection {
    let fd: Int32
    let id: Int
    let server: LoopbackHTTPServer
    /// Bytes read but not consumed yet (the start of the next request on a kept-alive connection).
    var buffer: [UInt8] = []
    var readOffset = 0

    init(fd: Int32, id: Int, server: LoopbackHTTPServer) {
        self.fd = fd
        self.id = id
        self.server = server
    }

    /// A request that could not be read: answer with this status, then close.
    struct Malformed: Error {
        var status: Int
        var reason: String
    }

    /// The peer closed (or the server stopped) before a request was complete.
    struct Closed: Error {}

    /// Serves requests until the peer closes, a request asks to close, an action closes, or the server stops.
    func serve() {
        while !server.isStopped {
            let request: LoopbackHTTPServer.Request
            let wantsClose: Bool
            do {
                guard let head = try readHead() else { return }
                (request, wantsClose) = try readRequest(head: head)
            } catch let error as Malformed {
                let response = LoopbackHTTPServer.Response.text(error.status, error.reason)
                _ = write(serialize(response, close: true))
                return
            } catch {
                return
            }
            server.requestStarted()
            let keepOpen = perform(server.handle(request), requestWantsClose: wantsClose)
            server.requestFinished()
            if !keepOpen { return }
        }
    }

    /// Parses the head and reads the body it announces (answering `Expect: 100-continue` first).
    func readRequest(head: [UInt8]) throws -> (LoopbackHTTPServer.Request, close: Bool) {
        let receivedAt = Date()
        let parsed = try HTTPRequestHead(head)
        let contentLength = try parsed.contentLength()
        if parsed.expectsContinue && (parsed.isChunked || contentLength > 0) && buffer.count == readOffset {
            guard write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { throw Closed() }
        }
        var body: [UInt8] = []
        if parsed.isChunked {
            body = try readChunkedBody()
        } else if contentLength > 0 {
            body = try readBytes(contentLength)
        }
        let request = LoopbackHTTPServer.Request(
            method: parsed.method, target: parsed.target, headers: parsed.headers, body: Data(body),
            connectionID: id, receivedAt: receivedAt)
        return (request, parsed.wantsClose)
    }

    /// Carries out one action; returns whether the connection may serve another request.
    func perform(_ action: LoopbackHTTPServer.Action, requestWantsClose: Bool) -> Bool {
        switch action {
        case .respond(let response):
            let close = requestWantsClose || wantsClose(response)
            return write(serialize(response, close: close)) && !close
        case .delayed(let duration, let response):
            server.pause(duration)
            if server.isStopped { return false }
            let close = requestWantsClose || wantsClose(response)
            return write(serialize(response, close: close)) && !close
        case .closeConnection:
            return false
        case .raw(let bytes):
            _ = write(Array(bytes))
            return false
        case .truncated(let response, let keepingBytes):
            var bytes = head(of: response, close: true, contentLength: response.body.count)
            bytes += response.body.prefix(max(0, min(keepingBytes, response.body.count)))
            _ = write(bytes)
            return false
        }
    }

    func wantsClose(_ response: LoopbackHTTPServer.Response) -> Bool {
        response.header("Connection")?.lowercased().contains("close") ?? false
    }
}
