internal import CCurl
import Foundation

/// A failure below HTTP while graph-ics sends a request: the connection, TLS, a timeout, a refused URL.
///
/// Any HTTP status (4xx and 5xx included) is a response, never a `CurlError`. The message names the
/// host only: never the full URL (a query can carry an authorization code) and never a header value
/// (headers carry bearer tokens).
public struct CurlError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of failure this is; `RetryPolicy` decides from it whether to try again.
    public enum Code: Equatable, Sendable {
        /// The host name did not resolve (a wrong `--graph-url`, no network). Not retried.
        case couldNotResolveHost
        /// The TCP connection could not be made (refused, unreachable, connect timeout).
        case couldNotConnect
        /// The whole transfer took longer than its timeout.
        case timedOut
        /// The connection broke after it was made: reset while sending or receiving, closed without a
        /// reply, or closed before the whole body arrived.
        case connectionDropped
        /// The TLS handshake failed or the server's certificate did not verify.
        case tls
        /// The response body grew past the transport's `maxResponseBytes`.
        case responseTooLarge
        /// A plain `http://` URL to a host that is not loopback; nothing was sent.
        case insecureURL
        /// The request could not be expressed (an unsupported URL scheme, a header with a line break).
        case invalidRequest
        /// Any other libcurl failure, with its `CURLcode`.
        case other(Int)
    }

    /// The kind of failure.
    public var code: Code
    /// The host the request went to (no path, no query).
    public var host: String
    /// A human sentence naming the host; safe to print.
    public var message: String
    /// libcurl's `CURLcode` number, or `nil` when graph-ics refused the request before libcurl ran.
    public var curlCode: Int?

    public init(code: Code, host: String, message: String, curlCode: Int? = nil) {
        self.code = code
        self.host = host
        self.message = message
        self.curlCode = curlCode
    }

    public var description: String {
        if let curlCode {
            return "\(message) (libcurl error \(curlCode))"
        }
        return message
    }

    /// Whether the failure is one a later attempt may not see: the connection could not be made, broke,
    /// or timed out. TLS, resolve, size and refused-URL failures are not.
    public var isConnectionFailure: Bool {
        switch code {
        case .couldNotConnect, .timedOut, .connectionDropped: true
        default: false
        }
    }

    /// The error for a plain `http://` URL to a host that is not loopback.
    public static func insecureURL(_ host: String) -> CurlError {
        CurlError(
            code: .insecureURL,
            host: host,
            message: "Refusing to send a request to \(host) over plain http://: graph-ics talks to remote hosts"
                + " over https:// only, so tokens never travel in clear text (http:// is accepted for loopback"
                + " hosts only)."
        )
    }

    /// The error for a response body larger than `limit` bytes.
    public static func responseTooLarge(host: String, limit: Int) -> CurlError {
        CurlError(
            code: .responseTooLarge,
            host: host,
            message: "The response from \(host) is larger than \(limit) bytes; graph-ics stopped reading it.",
            curlCode: Int(CURLE_WRITE_ERROR.rawValue)
        )
    }

    /// The error for a request graph-ics cannot send as asked.
    static func invalidRequest(host: String, _ reason: String) -> CurlError {
        CurlError(code: .invalidRequest, host: host, message: "Cannot send the request to \(host): \(reason).")
    }

    /// Turns a failed `CURLcode` into an error naming `host`.
    ///
    /// `detail` is libcurl's error buffer; graph-ics removes `redacting` (the URL's query) from it.
    static func from(_ result: CURLcode, host: String, detail: String, redacting secrets: [String]) -> CurlError {
        let number = Int(result.rawValue)
        var detail = detail.trimmingCharacters(in: .whitespacesAndNewlines)
        for secret in secrets where !secret.isEmpty {
            detail = detail.replacingOccurrences(of: secret, with: "…")
        }
        if detail.isEmpty, let text = curl_easy_strerror(result) {
            detail = String(cString: text)
        }
        while detail.hasSuffix(".") {
            detail.removeLast()
        }
        let code: Code
        let summary: String
        switch result {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            code = .couldNotResolveHost
            summary = "Could not resolve \(host)"
        case CURLE_COULDNT_CONNECT:
            code = .couldNotConnect
            summary = "Could not connect to \(host)"
        case CURLE_OPERATION_TIMEDOUT:
            code = .timedOut
            summary = "The request to \(host) timed out"
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2,
            CURLE_HTTP2_STREAM:
            code = .connectionDropped
            summary = "The connection to \(host) broke before the response was complete"
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
            code = .tls
            summary = "The TLS connection to \(host) failed"
        case CURLE_FILESIZE_EXCEEDED:
            code = .responseTooLarge
            summary = "The response from \(host) is too large"
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            code = .invalidRequest
            summary = "Cannot send the request to \(host)"
        default:
            code = .other(number)
            summary = "The request to \(host) failed"
        }
        return CurlError(code: code, host: host, message: "\(summary): \(detail).", curlCode: number)
    }
}
