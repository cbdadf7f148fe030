import Foundation
import GraphICS
import Testing

@testable import GraphICSDAV

@Suite struct DAVPasswordTests {
    @Test func aPasswordIs26Base32CharactersAndNeverRepeats() {
        let passwords = (0..<500).map { _ in DAVPassword.generate() }
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        #expect(passwords.allSatisfy { $0.count == 26 && $0.allSatisfy(alphabet.contains) })
        #expect(Set(passwords).count == passwords.count)
        // 5 random bits per character: all 32 turn up over 500 passwords (13,000 characters).
        #expect(Set(passwords.joined()) == alphabet)
    }

    @Test func theHashIsSHA256InHexAndOnlyThePasswordMatchesIt() {
        let password = DAVPassword.generate()
        let hash = DAVPassword.hash(password)
        #expect(hash == "sha256:" + SHA256.hexDigest(password.utf8))
        #expect(DAVPassword.hash("abc") == "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(!hash.contains(password))
        #expect(DAVPassword.matches(password, hash: hash))
        #expect(!DAVPassword.matches(password.lowercased(), hash: hash))
        #expect(!DAVPassword.matches(String(password.dropLast()), hash: hash))
        #expect(!DAVPassword.matches(password + "A", hash: hash))
        #expect(!DAVPassword.matches("", hash: hash))
        #expect(!DAVPassword.matches(password, hash: ""), "an empty hash matches nothing")
        #expect(!DAVPassword.matches(password, hash: hash.uppercased()))
        #expect(DAVPassword.isWellFormedHash(hash) && !DAVPassword.isWellFormedHash(password))
    }
}
