import Foundation

/// A feed's rendered body as it is served: the bytes, their gzip (compressed once, when the body is
/// prepared, never per request) and the header values, all immutable and shared by every request.
public final class PreparedFeedBody: Sendable {
    public let rendered: RenderedFeed
    public let identity: HTTPBody
    /// The gzip-encoded body; nil when compression failed (the identity body is then served to everyone).
    public let gzip: HTTPBody?
    /// `Last-Modified`, as an HTTP-date.
    public let lastModified: String

    public init(_ rendered: RenderedFeed) {
        self.rendered = rendered
        identity = HTTPBody(rendered.body)
        gzip = (try? Gzip.compress(rendered.body)).map { HTTPBody($0) }
        lastModified = HTTPDate.format(rendered.lastModified)
    }

    /// This body when it still holds `rendered` (same ETag), else one prepared from `rendered`: a feed's
    /// body is compressed again only when it changed.
    public func reused(for rendered: RenderedFeed) -> PreparedFeedBody {
        rendered.etag == self.rendered.etag ? self : PreparedFeedBody(rendered)
    }
}

/// One feed as the router answers for it: how it is addressed, its body (nil until the first refresh
/// or the disk cache gave one) and how its last refreshes went.
public struct ServedFeed: Sendable {
    public var name: String
    public var secret: String
    public var body: PreparedFeedBody?
    public var status: FeedStatus

    public init(name: String, secret: String, body: PreparedFeedBody? = nil, status: FeedStatus = FeedStatus()) {
        self.name = name
        self.secret = secret
        self.body = body
        self.status = status
    }

    /// Whether the last refresh failed: the body is then older than a refresh promised, and is served
    /// with a `Warning`.
    public var isStale: Bool { status.isFailing }
}
