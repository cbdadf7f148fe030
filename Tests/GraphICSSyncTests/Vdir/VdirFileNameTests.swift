import Foundation
import GraphICS
import GraphICSSync
import Testing

@Suite struct VdirFileNameTests {
    static let awkwardUIDs = [
        "040000008200E00074C5B7101A82E00800000000D0D6B5C2A1B2D901000000000000000010000000",
        "a/b/../c",
        "with space and\ttab",
        "Überstunden-café-☕-日本",
        ".hidden-looking",
        "..",
        "100%25 sure%",
        "mailto:someone@example.com",
        "CON",
        "x.ics",
        "line\r\nbreak",
        "~tilde~",
    ]

    @Test("names keep [A-Za-z0-9@._-] and encode every other byte as %XX")
    func encoding() {
        #expect(VdirFileName.forUID("abc-123_x.y@example.com") == "abc-123_x.y@example.com.ics")
        #expect(VdirFileName.forUID("a/b c") == "a%2Fb%20c.ics")
        #expect(VdirFileName.forUID("café") == "caf%C3%A9.ics")
        #expect(VdirFileName.forUID("50%") == "50%25.ics")
        #expect(VdirFileName.forUID("~") == "%7E.ics")
    }

    @Test("a UID starting with a dot does not make a hidden file")
    func leadingDot() {
        #expect(VdirFileName.forUID(".hidden") == "%2Ehidden.ics")
        #expect(VdirFileName.forUID("..") == "%2E..ics")
        #expect(VdirFileName.forUID("a.b") == "a.b.ics")
    }

    @Test("awkward UIDs make safe names that decode back", arguments: awkwardUIDs)
    func roundTrip(uid: String) {
        let name = VdirFileName.forUID(uid)
        #expect(VdirFileName.isItemName(name))
        #expect(!name.hasPrefix("."))
        #expect(
            name.utf8.allSatisfy { byte in
                byte < 0x80
                    && (byte == UInt8(ascii: "%") || Character(Unicode.Scalar(byte)).isLetter
                        || Character(Unicode.Scalar(byte)).isNumber || "@._-".utf8.contains(byte))
            })
        #expect(VdirFileName.uid(fromFileName: name) == uid)
    }

    @Test("different UIDs get different names")
    func distinct() {
        let names = Set(Self.awkwardUIDs.map(VdirFileName.forUID))
        #expect(names.count == Self.awkwardUIDs.count)
        // Names that differ only in the case of an escape are not both made.
        #expect(VdirFileName.forUID("%2F") != VdirFileName.forUID("/"))
    }

    @Test("a 300-character UID is hashed into a name under 255 bytes that stays distinct")
    func longUID() {
        let long = String(repeating: "x", count: 300)
        let longer = long + "y"
        let unicode = String(repeating: "☕", count: 300)
        for uid in [long, longer, unicode] {
            let name = VdirFileName.forUID(uid)
            #expect(name.utf8.count <= VdirFileName.maximumBytes)
            #expect(name.utf8.count < 255)
            #expect(name.hasSuffix("~" + SHA256.hexDigest(uid.utf8) + ".ics"))
            #expect(VdirFileName.isItemName(name))
            #expect(VdirFileName.uid(fromFileName: name) == nil)
            // The name is stable: the same UID makes the same name every time.
            #expect(VdirFileName.forUID(uid) == name)
        }
        #expect(VdirFileName.forUID(long) != VdirFileName.forUID(longer))
        // An escape is never cut in two by the shortening.
        let unicodeName = VdirFileName.forUID(unicode)
        let stem = unicodeName.split(separator: "~").first.map(String.init) ?? ""
        #expect(stem.utf8.count % 3 == 0)
        #expect(stem.hasPrefix("%E2%98%95"))
    }

    @Test("the longest UID that fits keeps its plain name")
    func boundary() {
        let fits = String(repeating: "a", count: VdirFileName.maximumBytes - 4)
        #expect(VdirFileName.forUID(fits) == fits + ".ics")
        #expect(VdirFileName.forUID(fits + "a").contains("~"))
    }

    @Test("the empty UID still gets a visible item name")
    func emptyUID() {
        let name = VdirFileName.forUID("")
        #expect(VdirFileName.isItemName(name))
        #expect(name == "~" + SHA256.hexDigest([UInt8]()) + ".ics")
    }

    @Test(
        "names graph-ics did not make decode to nil",
        arguments: ["notes.txt", "abc%2e.ics", "abc%2.ics", "abc%.ics", "%FF.ics", ".ics", "a b.ics", "displayname"])
    func foreignNames(name: String) {
        #expect(VdirFileName.uid(fromFileName: name) == nil)
    }
}
