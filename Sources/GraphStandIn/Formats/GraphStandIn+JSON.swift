// Graph's answers are written by a direct JSON writer for the stand-in's `[String: Any]` values, not by
// Foundation's JSONSerialization, which bridges every value and is too slow on Linux for 1,000-event pages.
import Foundation

extension GraphStandIn {
    /// UTF-8 JSON for a tree of `[String: Any]`, `[Any]`, `String`, `Bool`, integers, floating point numbers,
    /// `NSNumber` and `NSNull`; nil when something else is inside.
    static func jsonData(_ object: Any) -> Data? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4096)
        guard writeJSON(object, into: &bytes) else { return nil }
        return Data(bytes)
    }

    private static func writeJSON(_ value: Any, into bytes: inout [UInt8]) -> Bool {
        let kind = type(of: value)
        if let text = value as? String {
            writeString(text, into: &bytes)
            return true
        }
        if kind == Bool.self, let flag = value as? Bool {
            bytes += flag ? Array("true".utf8) : Array("false".utf8)
            return true
        }
        if kind == Int.self, let number = value as? Int {
            bytes += Array(String(number).utf8)
            return true
        }
        if kind == Double.self, let number = value as? Double {
            writeDouble(number, into: &bytes)
            return true
        }
        if let object = value as? [String: Any] {
            bytes.append(0x7B)
            var first = true
            for (key, item) in object {
                if !first { bytes.append(0x2C) }
                first = false
                writeString(key, into: &bytes)
                bytes.append(0x3A)
                guard writeJSON(item, into: &bytes) else { return false }
            }
            bytes.append(0x7D)
            return true
        }
        if let array = value as? [Any] {
            bytes.append(0x5B)
            for (index, item) in array.enumerated() {
                if index > 0 { bytes.append(0x2C) }
                guard writeJSON(item, into: &bytes) else { return false }
            }
            bytes.append(0x5D)
            return true
        }
        if value is NSNull {
            bytes += Array("null".utf8)
            return true
        }
        if let number = value as? NSNumber {
            switch String(cString: number.objCType) {
            case "c", "B":
                bytes += number.boolValue ? Array("true".utf8) : Array("false".utf8)
            case "d", "f":
                writeDouble(number.doubleValue, into: &bytes)
            default:
                bytes += Array(number.stringValue.utf8)
            }
            return true
        }
        if let number = value as? any BinaryInteger {
            bytes += Array(String(describing: number).utf8)
            return true
        }
        if let number = value as? Float {
            writeDouble(Double(number), into: &bytes)
            return true
        }
        return false
    }

    private static func writeDouble(_ number: Double, into bytes: inout [UInt8]) {
        guard number.isFinite else {
            bytes += Array("null".utf8)
            return
        }
        if number == number.rounded() && abs(number) < 1e15 {
            bytes += Array(String(Int64(number)).utf8)
        } else {
            bytes += Array(String(number).utf8)
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func writeString(_ text: String, into bytes: inout [UInt8]) {
        bytes.append(0x22)
        for byte in text.utf8 {
            switch byte {
            case 0x22: bytes += [0x5C, 0x22]
            case 0x5C: bytes += [0x5C, 0x5C]
            case 0x0A: bytes += [0x5C, 0x6E]
            case 0x0D: bytes += [0x5C, 0x72]
            case 0x09: bytes += [0x5C, 0x74]
            case 0x00..<0x20:
                bytes += [0x5C, 0x75, 0x30, 0x30, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 15)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(0x22)
    }
}
