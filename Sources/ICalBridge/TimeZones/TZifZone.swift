import Foundation

/// The UTC offsets of one zone read from its TZif file (RFC 8536) in the system's tzdata, the data libical
/// reads too: the transitions of the 64-bit block, then the POSIX TZ rule of the footer.
///
/// Only a filter for ``VTimezoneMatcher`` and the source of the TZNAMEs graph-ics writes; libical's
/// answer is the one graph-ics converts times with.
struct TZifZone: Sendable {
    /// Transition instants, ascending.
    var transitions: [Int64]
    /// The offset in force from each transition on, and its abbreviation.
    var offsets: [Int32]
    var abbreviations: [String]
    /// The offset before the first transition (time type 0), and its abbreviation.
    var initial: Int32
    var initialAbbreviation: String
    /// The rule after the last transition, when the file has one.
    var footer: PosixTZRule?

    /// Reads the file at `path`; nil when it is missing or not a well-formed TZif file.
    init?(path: String) {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        self.init(bytes: [UInt8](data))
    }

    init?(bytes: [UInt8]) {
        func integer(_ at: Int, _ size: Int) -> Int64? {
            guard at >= 0, at + size <= bytes.count else { return nil }
            var value: Int64 = 0
            for index in at..<(at + size) { value = value << 8 | Int64(bytes[index]) }
            // Sign-extend 32-bit values.
            return size == 4 ? Int64(Int32(truncatingIfNeeded: value)) : value
        }
        /// isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt of the header at `at`.
        func counts(_ at: Int) -> [Int]? {
            guard bytes.count >= at + 44, bytes[at..<(at + 4)].elementsEqual("TZif".utf8) else { return nil }
            let values = (0..<6).compactMap { integer(at + 20 + 4 * $0, 4) }.map { Int($0) }
            guard values.count == 6, values.allSatisfy({ $0 >= 0 && $0 < 1 << 20 }) else { return nil }
            return values
        }
        func blockSize(_ c: [Int], timeSize: Int) -> Int {
            c[3] * timeSize + c[3] + c[4] * 6 + c[5] + c[2] * (timeSize + 4) + c[1] + c[0]
        }
        guard var header = counts(0), bytes.count > 4 else { return nil }
        var base = 0
        var timeSize = 4
        if bytes[4] >= UInt8(ascii: "2") {
            base = 44 + blockSize(header, timeSize: 4)
            guard let second = counts(base) else { return nil }
            header = second
            timeSize = 8
        }
        let timeCount = header[3]
        let typeCount = header[4]
        let data = base + 44
        let end = data + blockSize(header, timeSize: timeSize)
        guard typeCount > 0, end <= bytes.count else { return nil }
        let typesAt = data + timeCount * (timeSize + 1)
        let charactersAt = typesAt + typeCount * 6
        var typeOffsets: [Int32] = []
        var typeNames: [String] = []
        for type in 0..<typeCount {
            guard let offset = integer(typesAt + 6 * type, 4) else { return nil }
            typeOffsets.append(Int32(truncatingIfNeeded: offset))
            // An index past the designations gives an empty name, not a trap.
            let charactersEnd = charactersAt + header[5]
            let from = min(charactersAt + Int(bytes[typesAt + 6 * type + 5]), charactersEnd)
            let characters = bytes[from..<charactersEnd]
            typeNames.append(String(decoding: characters.prefix { $0 != 0 }, as: UTF8.self))
        }
        var transitions: [Int64] = []
        var offsets: [Int32] = []
        var abbreviations: [String] = []
        for index in 0..<timeCount {
            let type = Int(bytes[data + timeCount * timeSize + index])
            guard let instant = integer(data + index * timeSize, timeSize), type < typeCount else { return nil }
            transitions.append(instant)
            offsets.append(typeOffsets[type])
            abbreviations.append(typeNames[type])
        }
        guard zip(transitions, transitions.dropFirst()).allSatisfy({ $0 < $1 }) else { return nil }
        self.transitions = transitions
        self.offsets = offsets
        self.abbreviations = abbreviations
        initial = typeOffsets[0]
        initialAbbreviation = typeNames[0]
        footer = nil
        if timeSize == 8, end < bytes.count, bytes[end] == 0x0A,
            let close = bytes[(end + 1)...].firstIndex(of: 0x0A), close > end + 1
        {
            guard let rule = PosixTZRule(Array(bytes[(end + 1)..<close])) else { return nil }
            footer = rule
        }
    }

    /// Seconds east of UTC at `instant`.
    func offset(at instant: Int64) -> Int {
        guard let index = transitionIndex(atOrBefore: instant) else { return Int(initial) }
        if let footer, index == transitions.count - 1 { return footer.offset(at: instant) }
        return Int(offsets[index])
    }

    /// The abbreviations in use in `[from, to)` (`CET`, `CEST`; tzdata writes `+0530` where a zone has none).
    func abbreviations(from: Int64, to: Int64) -> [String] {
        let first = transitionIndex(atOrBefore: from)
        var result = [first.map { abbreviations[$0] } ?? initialAbbreviation]
        var index = (first ?? -1) + 1
        while index < transitions.count, transitions[index] < to {
            result.append(abbreviations[index])
            index += 1
        }
        if let footer, transitions.last.map({ $0 < to }) ?? true { result += footer.names }
        return result
    }

    /// The abbreviation in force at `instant` (`CET`, `+0530`): the one of its transition, or after the
    /// last the footer's standard or daylight name.
    func abbreviation(at instant: Int64) -> String {
        guard let index = transitionIndex(atOrBefore: instant) else { return initialAbbreviation }
        if let footer, index == transitions.count - 1, let standard = footer.names.first {
            let isDaylight = footer.daylight != nil && footer.offset(at: instant) != footer.standard
            return isDaylight && footer.names.count > 1 ? footer.names[1] : standard
        }
        return abbreviations[index]
    }

    /// The last transition at or before `instant`, by bisection.
    private func transitionIndex(atOrBefore instant: Int64) -> Int? {
        guard let first = transitions.first, instant >= first else { return nil }
        var low = 0
        var high = transitions.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if transitions[middle] <= instant { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
