import Foundation
import GraphICS
import TestSupport
import Testing

@Suite struct SHA256Tests {
    /// FIPS 180-4's examples (NIST "SHA-256" example values, and the million-`a` message of FIPS 180-2).
    @Test(
        "the FIPS 180-4 test vectors",
        arguments: [
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
            ),
        ])
    func vectors(message: String, digest: String) {
        #expect(SHA256.hexDigest(message.utf8) == digest)
    }

    @Test("a million times 'a'")
    func millionA() {
        let message = Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(
            SHA256.hash(message).map { String(format: "%02x", $0) }.joined()
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("feeding a message in pieces gives the digest of the whole", arguments: [1, 3, 55, 56, 63, 64, 65, 200])
    func incremental(pieceSize: Int) {
        let message = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        var hasher = SHA256()
        var offset = 0
        while offset < message.count {
            hasher.update(message[offset..<min(offset + pieceSize, message.count)])
            offset += pieceSize
        }
        #expect(hasher.finalize() == SHA256.hash(message))
        #expect(SHA256.hash(message).count == 32)
    }

    @Test(
        "messages around the padding boundaries hash as coreutils' sha256sum hashes them",
        arguments: [55, 56, 57, 63, 64, 65, 119, 120, 121, 128])
    func paddingBoundaries(length: Int) throws {
        let message = String(repeating: "q", count: length)
        let run = try runProgram("/usr/bin/sha256sum", [], input: message)
        #expect(run.status == 0)
        #expect(SHA256.hexDigest(message.utf8) == run.out.split(separator: " ").first.map(String.init))
    }
}
