import Foundation
import Testing

@testable import GraphICSServe

@Suite struct FeedSecretTests {
    @Test func aSecretIs64LowercaseHexDigitsAndNeverRepeats() {
        let secrets = (0..<200).map { _ in FeedSecret.generate() }
        #expect(secrets.allSatisfy(FeedSecret.isWellFormed))
        #expect(Set(secrets).count == secrets.count)
        // 256 bits from the random source: every hex digit turns up over 200 secrets.
        #expect(Set(secrets.joined()).count == 16)
    }

    @Test func onlyTheWholeSecretMatches() {
        let secret = FeedSecret.generate()
        #expect(FeedSecret.matches(Substring(secret), secret))
        #expect(!FeedSecret.matches(Substring(secret.dropLast()), secret))
        #expect(!FeedSecret.matches(Substring(secret + "0"), secret))
        #expect(!FeedSecret.matches(Substring(secret.uppercased()), secret))
        #expect(!FeedSecret.matches("", secret))
        #expect(!FeedSecret.matches("", ""), "an empty secret matches nothing")
        var other = Array(secret.utf8)
        other[63] = other[63] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        #expect(!FeedSecret.matches(Substring(String(decoding: other, as: UTF8.self)), secret))
        // A secret inside a longer path is compared as the slice the router cut.
        let path = "/" + secret + "/team.ics"
        #expect(FeedSecret.matches(path.dropFirst().prefix(64), secret))
    }

    @Test func wellFormedMeansLowercaseHexOfTheRightLength() {
        #expect(FeedSecret.isWellFormed(String(repeating: "a", count: 64)))
        #expect(!FeedSecret.isWellFormed(String(repeating: "A", count: 64)))
        #expect(!FeedSecret.isWellFormed(String(repeating: "g", count: 64)))
        #expect(!FeedSecret.isWellFormed(String(repeating: "a", count: 63)))
    }
}
