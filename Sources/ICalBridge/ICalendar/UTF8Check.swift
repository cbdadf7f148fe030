import Foundation

/// Checks that input is well-formed UTF-8 without making a `String` of it.
enum UTF8Check {
    /// Whether `bytes` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above
    /// U+10FFFF, no sequence cut short). An input of megabytes is checked in parts on all cores: the file is
    /// read before anything else can start, so this is time every conversion waits for.
    static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let parts = bytes.count < 1 << 20 ? 1 : min(ProcessInfo.processInfo.activeProcessorCount * 2, 16)
        guard parts > 1 else { return isValidPart(bytes) }
        // Part boundaries moved past continuation bytes (10xxxxxx), so that each part starts at the start of
        // a character; a sequence cut by a boundary then fails in the part it starts in.
        var bounds = [0]
        for part in 1..<parts {
            var bound = max(bounds[part - 1], bytes.count / parts * part)
            var moved = 0
            while bound < bytes.count, bytes[bound] & 0xC0 == 0x80 {
                bound += 1
                moved += 1
                if moved > 3 { return false }
            }
            bounds.append(bound)
        }
        bounds.append(bytes.count)
        let valid = Parallel.mapEach(count: parts) { part in
            isValidPart(UnsafeRawBufferPointer(rebasing: bytes[bounds[part]..<bounds[part + 1]]))
        }
        return !valid.contains(false)
    }

    private static func isValidPart(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        while index < count {
            // Runs of ASCII eight bytes at a time.
            while index + 8 <= count,
                base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                index += 8
            }
            guard index < count else { break }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            // The length a lead byte announces, and the range its second byte must fall in (narrower than
            // 80–BF where that excludes overlong forms, surrogates and code points above U+10FFFF).
            let length: Int
            var lowest: UInt8 = 0x80
            var highest: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: (length, lowest) = (3, 0xA0)
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: (length, highest) = (3, 0x9F)
            case 0xF0: (length, lowest) = (4, 0x90)
            case 0xF1...0xF3: length = 4
            case 0xF4: (length, highest) = (4, 0x8F)
            default: return false
            }
            guard index + length <= count else { return false }
            let second = bytes[index + 1]
            guard second >= lowest, second <= highest else { return false }
            for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 { return false }
            index += length
        }
        return true
    }
}
