import Foundation

/// `application/x-www-form-urlencoded` bodies for the identity platform.
///
/// graph-ics percent-encodes every byte outside `A-Z a-z 0-9 - . _ ~` itself: `URLComponents` leaves `+`,
/// which a form decoder reads as a space, so a secret or refresh token containing `+` would arrive altered.
enum FormEncoding {
    /// `name=value&…`, in the given order.
    static func encode(_ fields: [(String, String)]) -> Data {
        var bytes: [UInt8] = []
        for (index, (name, value)) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "&")) }
            append(name, to: &bytes)
            bytes.append(UInt8(ascii: "="))
            append(value, to: &bytes)
        }
        return Data(bytes)
    }

    private static func append(_ text: String, to bytes: inout [UInt8]) {
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
    }
}
