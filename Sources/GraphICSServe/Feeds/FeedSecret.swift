import CGlibc
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The secret part of a feed's URL (`/<secret>/<NAME>.ics`): calendar apps cannot send credentials on a
/// subscription, so whoever knows the URL may read the feed, and nobody else can guess it.
public enum FeedSecret {
    /// Bytes of randomness in a secret (256 bits).
    public static let byteCount = 32

    /// A new secret: 32 bytes from the kernel's random source (`getrandom(2)`), as 64 lowercase hex digits.
    ///
    /// `getrandom` blocks only until the kernel's pool is first initialised, at boot; it does not fail on
    /// Linux 3.17 and later short of a signal, which is retried.
    public static func generate() -> String {
        var bytes = [UInt8](repeating: 0, count: byteCount)
        var filled = 0
        while filled < byteCount {
            let count = bytes.withUnsafeMutableBytes { raw in
                getrandom(raw.baseAddress.map { $0 + filled }, byteCount - filled, 0)
            }
            if count > 0 { filled += count }
        }
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(byteCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether `secret` has the form ``generate()`` gives: 64 lowercase hex digits.
    public static func isWellFormed(_ secret: String) -> Bool {
        secret.utf8.count == byteCount * 2
            && secret.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Whether `given` (from a request's path) is `secret`, in time that depends only on their lengths, never
    /// on where they first differ, so that a client timing 404s learns nothing about a secret.
    public static func matches(_ given: Substring, _ secret: String) -> Bool {
        let expected = Array(secret.utf8)
        var difference = UInt8(given.utf8.count == expected.count ? 0 : 1)
        var index = 0
        for byte in given.utf8 {
            // Past the secret's end the comparison goes on against itself, so the time stays the same.
            difference |= byte ^ (index < expected.count ? expected[index] : byte)
            index += 1
        }
        return difference == 0 && !expected.isEmpty
    }
}
