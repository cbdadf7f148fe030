import Foundation

/// Whose calendars graph-ics works on: the signed-in user's own (`/me`) or another mailbox (`--user UPN`,
/// needed with application permissions, where there is no "me").
public enum Mailbox: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The signed-in user: paths start with `/me`.
    case me
    /// The mailbox with this user principal name (or object id): paths start with `/users/{upn}`.
    case user(String)

    /// The path prefix Graph resolves to this mailbox: `/me`, or `/users/` and the UPN percent-encoded
    /// (`@` and `=` stay as they are; `/`, `?`, `#`, `%`, `'`, space and non-ASCII are encoded).
    public var path: String {
        switch self {
        case .me: "/me"
        case .user(let upn): "/users/" + GraphQuery.encodePathSegment(upn)
        }
    }

    public var description: String {
        switch self {
        case .me: "the signed-in user's mailbox"
        case .user(let upn): "the mailbox of \(upn)"
        }
    }
}

/// Percent-encoding of URL parts the way Graph reads them.
enum GraphQuery {
    /// Characters left as they are in a path segment: RFC 3986 unreserved, `@` and `=` (ids end in `=`).
    private static let pathSegmentAllowed: Set<UInt8> = unreserved.union([UInt8(ascii: "@"), UInt8(ascii: "=")])

    /// Characters left as they are in a query value: unreserved, plus the OData punctuation Graph's docs
    /// write literally (`'`, `(`, `)`, `$`, `:`, `,`, `/`, `@`, `*`, `!`). Space, `=`, `&`, `+`, `;`, `#`,
    /// `?`, `%`, braces and non-ASCII are encoded (a space as `%20`, never `+`).
    private static let queryValueAllowed: Set<UInt8> = unreserved.union(
        "'()$:,/@*!".utf8
    )

    private static let unreserved: Set<UInt8> = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8
    )

    static func encodePathSegment(_ text: String) -> String {
        encode(text, allowed: pathSegmentAllowed)
    }

    static func encodeQueryValue(_ text: String) -> String {
        encode(text, allowed: queryValueAllowed)
    }

    /// `name=value&…` with each value encoded; names (`$top`, `startDateTime`) are written as they are.
    static func queryString(_ items: [(name: String, value: String)]) -> String {
        items.map { "\($0.name)=\(encodeQueryValue($0.value))" }.joined(separator: "&")
    }

    /// An OData string literal: the text in single quotes, each quote inside doubled (`'O''Brien'`).
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    private static func encode(_ text: String, allowed: Set<UInt8>) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if allowed.contains(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
