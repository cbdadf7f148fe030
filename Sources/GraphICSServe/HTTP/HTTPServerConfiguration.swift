import Foundation

/// A certificate (chain) and its private key, both PEM text, for HTTPS.
public struct TLSCredentials: Sendable, Equatable {
    /// The server's certificate, then any intermediates, PEM.
    public var certificatePEM: String
    /// The certificate's private key, PEM, unencrypted.
    public var keyPEM: String

    public init(certificatePEM: String, keyPEM: String) {
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
    }
}

/// How `HTTPServer` listens and what it limits.
///
/// The limits bound what one client can hold: connections overall and per address, how long an idle
/// connection stays open, and how large a request's header may be.
public struct HTTPServerConfiguration: Sendable {
    /// The address to listen on: an IPv4 or IPv6 literal (`127.0.0.1`, `::1`, `[::1]`, `0.0.0.0`, `::`).
    /// An IPv6 address listens on IPv6 only (`::` does not take IPv4 connections).
    public var address: String = "127.0.0.1"
    /// The TCP port; 0 picks a free one (read it from `HTTPServer.port`).
    public var port: UInt16 = 8080
    /// HTTPS with these credentials (GnuTLS); nil: plain HTTP.
    public var tls: TLSCredentials? = nil
    /// Connections open at once, over all clients; further clients wait in the listen queue.
    public var connectionLimit = 2048
    /// Connections open at once from one address; nil: no limit (a reverse proxy is one address).
    public var perAddressConnectionLimit: Int? = nil
    /// Seconds a connection may stay idle (nothing received or sent) before it is closed.
    public var connectionTimeout: Int = 30
    /// Seconds a client has to send a whole request (header and body), counted from the connection's opening
    /// or the end of the previous response; a client still sending then is disconnected (a slowloris
    /// trickling one byte a second is never idle). It also bounds how long a keep-alive connection waits for
    /// its next request. 0: no limit beyond `connectionTimeout`.
    public var requestTimeout: Int = 10
    /// Bytes of memory per connection: bounds a request's header (a larger one is answered 431).
    public var connectionMemoryLimit = 32 * 1024
    /// Threads answering requests, each with its own epoll set.
    public var threads = 2
    /// Bytes of a request body kept for the handler (1 MiB); a longer body is read and dropped, and the
    /// request answered 413 without the handler.
    public var requestBodyLimit = 1 << 20
    /// Receives libmicrohttpd's own messages (a client's malformed request, a failed TLS handshake), one
    /// line each; nil: they are dropped.
    public var errorLog: (@Sendable (String) -> Void)? = nil

    public init() {}

    /// The address and port as one would write them in a URL: `127.0.0.1:8080`, `[::1]:8080`.
    public var displayAddress: String {
        let host = address.hasPrefix("[") ? address : (address.contains(":") ? "[\(address)]" : address)
        return "\(host):\(port)"
    }
}

/// Why `HTTPServer` could not start.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// The address is not an IPv4 or IPv6 literal.
        case invalidAddress
        /// A limit or count in the configuration is out of range.
        case invalidConfiguration
        /// Binding or listening failed (the address is in use, not on this machine, a privileged port).
        case cannotListen
        /// The TLS certificate or key was refused.
        case tls
    }

    public var code: Code
    /// The address and port asked for, as in `HTTPServerConfiguration.displayAddress`.
    public var address: String
    /// A sentence naming the address: `cannot listen on 127.0.0.1:8080: Address already in use`.
    public var message: String

    public init(code: Code, address: String, message: String) {
        self.code = code
        self.address = address
        self.message = message
    }

    public var description: String { message }
}
