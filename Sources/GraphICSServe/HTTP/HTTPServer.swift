import Foundation

/// An HTTP/1.1 server (GNU libmicrohttpd) that hands every request to one handler.
///
/// libmicrohttpd owns the sockets, parsing, keep-alive, HTTPS and the limits of `HTTPServerConfiguration`;
/// the handler owns routing and bodies. The server listens from `init` until `stop()` (or `deinit`).
/// Thread-safety: the handler is called on libmicrohttpd's threads (`configuration.threads` of them),
/// several requests at once; `port` and `stop()` may be used from any thread.
public final class HTTPServer: Sendable {
    private let daemon: MicroHTTPDaemon

    /// Starts listening; the handler answers every request from then on.
    ///
    /// A request's body is read whole (up to `requestBodyLimit`; a longer one is answered 413) before the
    /// handler sees it; the handler decides the status. Throws `HTTPServerError` naming the address when the server cannot listen.
    public init(
        configuration: HTTPServerConfiguration,
        handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerResponse
    ) throws(HTTPServerError) {
        daemon = try MicroHTTPDaemon(configuration: configuration, handler: handler)
    }

    deinit {
        daemon.stop()
    }

    /// The port the server listens on (the free port chosen when the configuration asked for 0).
    public var port: UInt16 { daemon.port }

    /// Lets the responses in flight finish (up to the connection timeout; anything answered meanwhile
    /// closes its connection), then stops listening and closes every connection. Returns once the server is closed; calling it again does nothing.
    public func stop() {
        daemon.stop()
    }
}
