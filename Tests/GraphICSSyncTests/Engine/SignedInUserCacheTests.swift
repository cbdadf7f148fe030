import Foundation
import GraphICSSync
import TestSupport
import Testing

@Suite struct SignedInUserCacheTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A JWT-shaped token whose payload expires at `exp` (the signature is not checked by anyone here).
    static func jwt(exp: Int) -> String {
        let payload = Data(#"{"upn":"ada@contoso.example","exp":\#(exp)}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
        return "eyJhbGciOiJub25lIn0." + payload + ".c2ln"
    }

    @Test func aJWTsNameIsKeptUntilTheTokenExpires() {
        let now = Date(timeIntervalSince1970: 1_796_119_200)
        let token = Self.jwt(exp: 1_796_119_200 + 3600)
        let cache = SignedInUserCache(stateDirectory: directory.path, token: token)
        #expect(cache.fresh(now: now) == nil)
        cache.store("ada@contoso.example", now: now)
        #expect(cache.fresh(now: now.addingTimeInterval(3599)) == "ada@contoso.example")
        #expect(cache.fresh(now: now.addingTimeInterval(3600)) == nil, "expired with the token")
        let text = (try? String(contentsOfFile: cache.path, encoding: .utf8)) ?? ""
        #expect(!text.contains(token) && !cache.path.contains(token))
    }

    @Test func anOpaqueTokensNameIsKeptForADayAndAnotherTokenHasItsOwnFile() {
        let now = Date(timeIntervalSince1970: 1_796_119_200)
        let cache = SignedInUserCache(stateDirectory: directory.path, token: "opaque-token-1")
        cache.store("ada@contoso.example", now: now)
        #expect(cache.fresh(now: now.addingTimeInterval(86_399)) == "ada@contoso.example")
        #expect(cache.fresh(now: now.addingTimeInterval(86_400)) == nil)
        let other = SignedInUserCache(stateDirectory: directory.path, token: "opaque-token-2")
        #expect(other.path != cache.path && other.fresh(now: now) == nil)
    }

    @Test func removeForgetsTheName() {
        let cache = SignedInUserCache(stateDirectory: directory.path, token: "opaque-token")
        cache.store("ada@contoso.example")
        #expect(cache.fresh() == "ada@contoso.example")
        cache.remove()
        #expect(cache.fresh() == nil && !FileManager.default.fileExists(atPath: cache.path))
    }
}
