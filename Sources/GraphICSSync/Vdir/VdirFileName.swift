import Foundation
import GraphICS

/// The file name of an item in a vdir folder, made from its UID.
///
/// vdirsyncer's "The Vdir Storage Format" asks for names with the properties of the UID; graph-ics makes
/// them reversible and safe for every tool that reads the folder: the bytes `A-Z a-z 0-9 @ . _ -` stay as
/// they are, every other UTF-8 byte becomes `%XX` (uppercase hexadecimal, so `%` itself is `%25`), a
/// leading `.` becomes `%2E` (a hidden file would be skipped by khal's and vdirsyncer's listings), and
/// `.ics` is appended. A name that would pass ``maximumBytes`` keeps the first part of the encoding and
/// ends in `~` and the SHA-256 of the UID instead (`~` is never produced by the encoding, so such a name
/// is never mistaken for an encoded one); the UID itself is in the file and in the state.
///
/// On a case-insensitive file system two UIDs that differ only in case share a name; Linux file systems
/// and Outlook's UIDs (hexadecimal) do not meet that case.
public enum VdirFileName {
    /// The longest name graph-ics makes, in bytes: well under the 255 of ext4, btrfs and tmpfs, leaving
    /// room for the names other tools derive from an item's (an editor's `.NAME.ics.swp`, `NAME.ics.tmp`).
    public static let maximumBytes = 200

    static let suffix = ".ics"
    static let hashMarker: Character = "~"

    /// The file name for `uid`.
    public static func forUID(_ uid: String) -> String {
        let encoded = encode(uid)
        if !uid.isEmpty, encoded.utf8.count + suffix.utf8.count <= maximumBytes {
            return encoded + suffix
        }
        let digest = SHA256.hexDigest(uid.utf8)
        let room = maximumBytes - suffix.utf8.count - 1 - digest.utf8.count
        return prefix(of: encoded, bytes: room) + String(hashMarker) + digest + suffix
    }

    /// The UID a name made by ``forUID(_:)`` encodes; nil for a hashed name (a long UID) and for names
    /// graph-ics did not make (khal's and other tools' names are read from the file instead).
    public static func uid(fromFileName name: String) -> String? {
        guard name.hasSuffix(suffix), !name.contains(hashMarker) else { return nil }
        let encoded = Array(name.utf8.dropLast(suffix.utf8.count))
        var bytes: [UInt8] = []
        var index = 0
        while index < encoded.count {
            if encoded[index] == UInt8(ascii: "%") {
                guard index + 2 < encoded.count, let high = hexValue(encoded[index + 1]),
                    let low = hexValue(encoded[index + 2])
                else { return nil }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(encoded[index])
                index += 1
            }
        }
        guard let uid = String(validating: bytes, as: UTF8.self), !uid.isEmpty, forUID(uid) == name else {
            return nil
        }
        return uid
    }

    /// Whether `name` is an item's name as vdir readers see it: ends in `.ics`, not hidden.
    public static func isItemName(_ name: String) -> Bool {
        name.hasSuffix(suffix) && name.utf8.count > suffix.utf8.count && !name.hasPrefix(".")
    }

    // MARK: Encoding

    static func encode(_ uid: String) -> String {
        var result = ""
        result.reserveCapacity(uid.utf8.count)
        for (offset, byte) in uid.utf8.enumerated() {
            if isKept(byte), !(offset == 0 && byte == UInt8(ascii: ".")) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return result
    }

    private static func isKept(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "@"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    /// Uppercase hexadecimal only: `%2e` is not a name ``forUID(_:)`` makes.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The longest start of an encoded name within `bytes`, never cutting a `%XX` in two.
    private static func prefix(of encoded: String, bytes: Int) -> String {
        var utf8 = Array(encoded.utf8.prefix(bytes))
        if let percent = utf8.suffix(2).lastIndex(of: UInt8(ascii: "%")) {
            utf8.removeSubrange(percent...)
        }
        return String(decoding: utf8, as: UTF8.self)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
