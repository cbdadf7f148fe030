import Foundation

/// Fetches an `.ics` from where tickets live, for `graph-ics import https://…/ticket.ics`.
///
/// The request is the ticket host's alone: it goes through a transport of its own (a ``CurlTransport``:
/// `https://` only, TLS always verified, plain `http://` only to a loopback host, a body cap of
/// ``maximumBytes``), never through the ``GraphClient``, so neither the Graph token nor `client-request-id`,
/// `Prefer` or any other Graph header is sent to that host. It sends only `Accept`, graph-ics's
/// `User-Agent` and libcurl's `Accept-Encoding`. Redirects are followed, at most ``maximumRedirects``, each checked by the same URL rule.
public struct TicketDownload: Sendable {
    /// The largest `.ics` accepted from a URL.
    public static let maximumBytes = 16 << 20
    /// How many redirects are followed before giving up.
    public static let maximumRedirects = 5

    let transport: any HTTPTransport

    public init(transport: any HTTPTransport = CurlTransport(maxResponseBytes: TicketDownload.maximumBytes)) {
        self.transport = transport
    }

    /// Whether `input` names a URL rather than a file: it starts with `https://` or `http://`.
    public static func isURL(_ input: String) -> Bool {
        let lowered = input.lowercased()
        return lowered.hasPrefix("https://") || lowered.hasPrefix("http://")
    }

    /// The body of `address`, after redirects. Throws a ``Failure`` naming the URL (query left out) for
    /// anything but a 2xx answer, a refused URL, or a failure below HTTP.
    public func fetch(_ address: String) throws(Failure) -> Data {
        guard var url = URL(string: address) else { throw Failure(address, "not a valid URL") }
        for _ in 0...Self.maximumRedirects {
            let request = HTTPRequest(
                method: "GET", url: url, headers: [(name: "Accept", value: "text/calendar, */*;q=0.5")])
            let response: HTTPResponse
            do {
                response = try transport.send(request)
            } catch {
                throw Failure(address, "\(error)")
            }
            switch response.status {
            case 200..<300:
                return response.body
            case 301, 302, 303, 307, 308:
                guard let location = response.header("Location"), let next = URL(string: location, relativeTo: url)
                else { throw Failure(address, "HTTP \(response.status) without a usable Location") }
                url = next.absoluteURL
            default:
                throw Failure(address, "the server answered HTTP \(response.status)")
            }
        }
        throw Failure(address, "more than \(Self.maximumRedirects) redirects")
    }

    /// Why a URL could not be fetched: one sentence naming it.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var url: String
        public var reason: String

        init(_ url: String, _ reason: String) {
            self.url = url
            self.reason = reason
        }

        public var description: String { "\(EventLabel.shortName(url)): cannot be fetched: \(reason)" }
    }
}
