import Foundation
import GraphICS
import GraphICSServe

/// The app passwords of CalDAV logins: random, shown once by `dav add` and `dav rotate`, stored only as a
/// hash.
///
/// A password is 130 bits from the system's random source (`SystemRandomNumberGenerator`, which is
/// `getrandom(2)` on Linux) written as 26 characters of RFC 4648 base32 (`A`–`Z`, `2`–`7`, no padding):
/// easy to type on a phone, and too many to guess. Such a secret needs no slow password hash (a slow hash
/// per Basic request would cost every request its time), so it is stored as `sha256:` and the SHA-256 of
/// its text in hex, and compared in time that does not depend on where a guess differs.
public enum DAVPassword {
    /// Characters in a password: 26 × 5 bits = 130 bits.
    public static let length = 26
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)
    static let hashPrefix = "sha256:"

    /// A new password: 26 base32 characters, each 5 random bits.
    public static func generate() -> String {
        var random = SystemRandomNumberGenerator()
        var text: [UInt8] = []
        text.reserveCapacity(length)
        for _ in 0..<length {
            text.append(alphabet[Int(random.next(upperBound: UInt8(alphabet.count)))])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// What dav.json keeps of `password`: `sha256:` and 64 lowercase hex digits.
    public static func hash(_ password: String) -> String {
        hashPrefix + SHA256.hexDigest(password.utf8)
    }

    /// Whether `password` is the one `hash` was made from, in time that depends only on the lengths of the
    /// hashes (always the same), never on where they first differ.
    public static func matches(_ password: String, hash: String) -> Bool {
        FeedSecret.matches(Substring(Self.hash(password)), hash)
    }

    /// Whether `hash` has the form ``hash(_:)`` gives.
    static func isWellFormedHash(_ hash: String) -> Bool {
        guard hash.hasPrefix(hashPrefix) else { return false }
        let digits = hash.utf8.dropFirst(hashPrefix.utf8.count)
        return digits.count == 64 && digits.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
