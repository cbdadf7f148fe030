/// A date-time as Graph writes it, parsed exactly.
public struct GraphTimestamp: Equatable, Sendable {
    public var civil: CivilDateTime
    /// The fraction of a second in units of 100 ns (Graph sends seven digits), kept but not exported:
    /// iCalendar has no fractions of a second.
    public var ticks: Int
    /// The UTC offset written in the string (`Z` is 0), or nil when the string has none.
    public var utcOffsetSeconds: Int?

    /// Reads `YYYY-MM-DDTHH:MM[:SS[.fffffff]][Z|±HH:MM]` and also a plain `YYYY-MM-DD`.
    public static func parse(_ text: String) -> GraphTimestamp? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    private static func parse(bytes all: UnsafeBufferPointer<UInt8>) -> GraphTimestamp? {
        if let fast = parseGraphForm(all) { return fast }
        var bytes = all[...]
        var position = 0
        func number(_ width: Int) -> Int? {
            guard position + width <= bytes.count else { return nil }
            var value = 0
            for index in position..<(position + width) {
                let byte = bytes[index]
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            position += width
            return value
        }
        func expect(_ character: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == character else { return false }
            position += 1
            return true
        }
        // Trailing spaces are a common artefact of hand-edited JSON; anything else is an error.
        while let last = bytes.last, last == 0x20 { bytes.removeLast() }
        guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D), let day = number(2) else {
            return nil
        }
        var civil = CivilDateTime(year: year, month: month, day: day)
        var ticks = 0
        var offset: Int?
        if position < bytes.count {
            guard expect(0x54) || expect(0x74) || expect(0x20), let hour = number(2), expect(0x3A),
                let minute = number(2)
            else { return nil }
            civil.hour = hour
            civil.minute = minute
            if expect(0x3A) {
                guard let second = number(2) else { return nil }
                civil.second = second
                if expect(0x2E) || expect(0x2C) {
                    var digits = 0
                    while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39 {
                        if digits < 7 { ticks = ticks * 10 + Int(bytes[position] - 0x30) }
                        digits += 1
                        position += 1
                    }
                    guard digits > 0 else { return nil }
                    for _ in digits..<max(digits, 7) { ticks *= 10 }
                }
            }
            if expect(0x5A) || expect(0x7A) {
                offset = 0
            } else if position < bytes.count, bytes[position] == 0x2B || bytes[position] == 0x2D {
                let sign = bytes[position] == 0x2D ? -1 : 1
                position += 1
                guard let hours = number(2) else { return nil }
                _ = expect(0x3A)
                guard let minutes = number(2), hours <= 14, minutes <= 59 else { return nil }
                offset = sign * (hours * 3600 + minutes * 60)
            }
        }
        guard position == bytes.count, civil.isValid else { return nil }
        return GraphTimestamp(civil: civil, ticks: ticks, utcOffsetSeconds: offset)
    }

    /// The form Graph nearly always sends, `YYYY-MM-DDTHH:MM:SS.fffffff` (optionally ending in `Z`), read
    /// with fixed positions; anything else goes to the general parser.
    private static func parseGraphForm(_ bytes: UnsafeBufferPointer<UInt8>) -> GraphTimestamp? {
        let count = bytes.count
        guard count == 27 || count == 28, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54, bytes[13] == 0x3A,
            bytes[16] == 0x3A, bytes[19] == 0x2E
        else { return nil }
        var isUTC = false
        if count == 28 {
            guard bytes[27] == 0x5A else { return nil }
            isUTC = true
        }
        func value(_ start: Int, _ width: Int) -> Int? {
            var result = 0
            for index in start..<(start + width) {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                result = result * 10 + Int(byte &- 0x30)
            }
            return result
        }
        guard let year = value(0, 4), let month = value(5, 2), let day = value(8, 2), let hour = value(11, 2),
            let minute = value(14, 2), let second = value(17, 2), let ticks = value(20, 7)
        else { return nil }
        let civil = CivilDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard civil.isValid else { return nil }
        return GraphTimestamp(civil: civil, ticks: ticks, utcOffsetSeconds: isUTC ? 0 : nil)
    }

    /// The instant, when the string carried its own offset.
    public var instant: Int64? {
        utcOffsetSeconds.map { civil.secondsSinceEpoch - Int64($0) }
    }
}
