// Opaque identifiers, tokens and codes shaped like Exchange's and Entra ID's, from a fast random source.
import Foundation
import Synchronization

extension GraphStandIn {
    /// A Graph-like opaque identifier (URL-safe base64 with Exchange's `AAMkA` prefix).
    static func newItemID(prefix: String = "AAMkAGI2") -> String {
        // 48 random bytes as URL-safe base64 (64 characters), like Exchange's REST ids.
        let bytes = random.bytes(48)
        var text = prefix
        text.reserveCapacity(prefix.count + 65)
        var index = 0
        while index < bytes.count {
            let word = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { text.append(tokenAlphabet[Int((word >> UInt32(shift)) & 63)]) }
            index += 3
        }
        return text + "="
    }

    private static let tokenAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    /// A random opaque string for tokens and codes.
    static func randomToken(length: Int = 40) -> String {
        String(random.bytes(length).map { tokenAlphabet[Int($0 & 63)] })
    }

    /// `count` random bytes as upper-case hex digits (the tail of Exchange's iCalUIds).
    static func randomHex(bytes count: Int) -> String {
        let digits = Array("0123456789ABCDEF")
        var text = ""
        text.reserveCapacity(count * 2)
        for byte in random.bytes(count) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return text
    }

    /// SplitMix64 seeded once from the system generator: ids and tokens need to be unique and unguessable
    /// within a test run, not cryptographically strong, and the system generator costs a system call a draw.
    final class FastRandom: Sendable {
        private let state = Mutex(UInt64.random(in: .min ... .max))

        func next() -> UInt64 {
            state.withLock { state in
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return z ^ (z >> 31)
            }
        }

        func bytes(_ count: Int) -> [UInt8] {
            var result: [UInt8] = []
            result.reserveCapacity(count + 8)
            while result.count < count {
                var word = next()
                for _ in 0..<8 {
                    result.append(UInt8(truncatingIfNeeded: word))
                    word >>= 8
                }
            }
            return Array(result.prefix(count))
        }
    }

    static let random = FastRandom()
}
