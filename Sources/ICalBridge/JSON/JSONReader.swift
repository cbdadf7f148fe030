import Foundation

/// A reader of JSON text that decodes straight into graph-ics's Graph models, without building a tree.
///
/// `JSONDecoder` spends most of a large export turning each object into a dictionary of keys; reading the
/// bytes once, with a `switch` per known key, is several times faster and keeps memory at what the models
/// themselves need. Errors carry the key path (`value[3].start.dateTime`) like `DecodingError` would.
struct JSONReader {
    /// Why reading stopped.
    enum Failure: Error {
        /// The text is not JSON at all: the whole input is unusable.
        case syntax(String, offset: Int)
        /// The JSON is fine but a value has the wrong type: only the enclosing event is unusable.
        case type(path: String, message: String)
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var index: Int
    /// The key path of the value being read, for messages; its length is the nesting depth.
    var path: [PathItem] = []

    /// Deeper nesting is refused: Graph's events are a few levels deep, and reading is recursive, on
    /// worker threads with small stacks.
    static let maximumDepth = 64

    enum PathItem {
        case key(JSONKey)
        case index(Int)
    }

    init(_ bytes: UnsafeBufferPointer<UInt8>, index: Int = 0) {
        self.bytes = bytes
        self.index = index
    }

    // MARK: Structure

    mutating func skipWhitespace() {
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    /// The next significant byte, not consumed; nil at the end.
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : nil
    }

    /// Consumes `null` if it is next.
    mutating func consumeNull() throws(Failure) -> Bool {
        guard peek() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw syntax("unexpected end of input") }
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != expected[offset] {
            throw syntax("unexpected character")
        }
        index += count
    }

    func syntax(_ message: String) -> Failure {
        .syntax(message, offset: index)
    }

    func typeError(_ expected: String) -> Failure {
        var found = "something else"
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""): found = "a string"
            case UInt8(ascii: "{"): found = "an object"
            case UInt8(ascii: "["): found = "an array"
            case UInt8(ascii: "t"), UInt8(ascii: "f"): found = "true or false"
            case UInt8(ascii: "n"): found = "null"
            default: found = "a number"
            }
        }
        return .type(path: pathString, message: "expected \(expected), found \(found)")
    }

    var pathString: String {
        var result = ""
        for item in path {
            switch item {
            case .key(let key): result += result.isEmpty ? key.string : "." + key.string
            case .index(let index): result += "[\(index)]"
            }
        }
        return result.isEmpty ? "the top level" : result
    }

    /// Reads an object, calling `body` for each key with the reader placed on the value; `body` must
    /// consume the value. `null` reads as no object (`false`).
    @discardableResult
    mutating func object(_ body: (inout JSONReader, JSONKey) throws(Failure) -> Void) throws(Failure) -> Bool {
        if try consumeNull() { return false }
        guard peek() == UInt8(ascii: "{") else { throw typeError("an object") }
        guard path.count < Self.maximumDepth else { throw syntax("nested more than \(Self.maximumDepth) levels deep") }
        index += 1
        if peek() == UInt8(ascii: "}") {
            index += 1
            return true
        }
        while true {
            guard peek() == UInt8(ascii: "\"") else { throw syntax("expected a key in quotes") }
            let key = try rawKey()
            guard peek() == UInt8(ascii: ":") else { throw syntax("expected ':' after a key") }
            index += 1
            path.append(.key(key))
            try body(&self, key)
            path.removeLast()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return true
            default: throw syntax("expected ',' or '}' in an object")
            }
        }
    }

    /// Reads an array, calling `body` for each element; `null` reads as no array (`false`).
    @discardableResult
    mutating func array(_ body: (inout JSONReader, Int) throws(Failure) -> Void) throws(Failure) -> Bool {
        if try consumeNull() { return false }
        guard peek() == UInt8(ascii: "[") else { throw typeError("an array") }
        guard path.count < Self.maximumDepth else { throw syntax("nested more than \(Self.maximumDepth) levels deep") }
        index += 1
        if peek() == UInt8(ascii: "]") {
            index += 1
            return true
        }
        var position = 0
        while true {
            path.append(.index(position))
            try body(&self, position)
            path.removeLast()
            position += 1
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return true
            default: throw syntax("expected ',' or ']' in an array")
            }
        }
    }

    /// Reads an object into `initial`: `assign` sets the field of each key it knows and returns false for
    /// the others, which are skipped. Nil for `null`.
    mutating func model<Model>(
        _ initial: Model,
        _ assign: (inout Model, inout JSONReader, JSONKey) throws(Failure) -> Bool
    ) throws(Failure) -> Model? {
        var model = initial
        let present = try object { (reader, key) throws(Failure) in
            if try !assign(&model, &reader, key) { try reader.skip() }
        }
        return present ? model : nil
    }

    /// Skips any value, checking its syntax.
    mutating func skip() throws(Failure) {
        switch peek() {
        case UInt8(ascii: "{"): try object { (reader, _) throws(Failure) in try reader.skip() }
        case UInt8(ascii: "["): try array { (reader, _) throws(Failure) in try reader.skip() }
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case nil: throw syntax("unexpected end of input")
        default: _ = try numberText()
        }
    }

    // MARK: Values

    /// A string, or nil for `null`.
    mutating func string() throws(Failure) -> String? {
        if try consumeNull() { return nil }
        guard peek() == UInt8(ascii: "\"") else { throw typeError("a string") }
        return try rawString()
    }

    /// A Boolean, or nil for `null`.
    mutating func bool() throws(Failure) -> Bool? {
        switch peek() {
        case UInt8(ascii: "t"):
            try literal("true")
            return true
        case UInt8(ascii: "f"):
            try literal("false")
            return false
        case UInt8(ascii: "n"):
            try literal("null")
            return nil
        default: throw typeError("true or false")
        }
    }

    /// A number, or nil for `null`.
    mutating func double() throws(Failure) -> Double? {
        if try consumeNull() { return nil }
        guard let first = peek(), first == UInt8(ascii: "-") || (first >= 0x30 && first <= 0x39) else {
            throw typeError("a number")
        }
        let text = try numberText()
        guard let value = Double(text), value.isFinite else { throw syntax("malformed number") }
        return value
    }

    /// A whole number, or nil for `null`.
    mutating func int() throws(Failure) -> Int? {
        let start = index
        guard let value = try double() else { return nil }
        guard let whole = Int(exactly: value) else {
            index = start
            throw typeError("a whole number")
        }
        return whole
    }

    /// An array of strings (`null` elements are dropped), or nil for `null`.
    mutating func strings() throws(Failure) -> [String]? {
        var result: [String] = []
        let present = try array { (reader, _) throws(Failure) in
            if let value = try reader.string() { result.append(value) }
        }
        return present ? result : nil
    }

    /// An array of objects, or nil for `null`.
    mutating func objects<T>(_ read: (inout JSONReader) throws(Failure) -> T?) throws(Failure) -> [T]? {
        var result: [T] = []
        let present = try array { (reader, _) throws(Failure) in
            if let value = try read(&reader) { result.append(value) }
        }
        return present ? result : nil
    }

    /// A number's text, checked against JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func numberText() throws(Failure) -> String {
        let start = index
        func digits() -> Int {
            let first = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            return index - first
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0 else { throw syntax("malformed number") }
        if integerDigits > 1, bytes[integerStart] == 0x30 { throw syntax("malformed number (leading zero)") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw syntax("malformed number") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() > 0 else { throw syntax("malformed number") }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    /// A key at `index` (which holds the opening quote): its bytes in the input, copied only when escaped.
    private mutating func rawKey() throws(Failure) -> JSONKey {
        let start = index + 1
        guard let end = try plainStringEnd(from: start) else {
            return JSONKey(bytes: UnsafeBufferPointer(start: nil, count: 0), escaped: try rawString())
        }
        index = end + 1
        return JSONKey(bytes: UnsafeBufferPointer(rebasing: bytes[start..<end]), escaped: nil)
    }

    /// A string at `index` (which holds the opening quote), unescaped. Raw control characters inside the
    /// quotes, which strict JSON forbids, are accepted as they are.
    private mutating func rawString() throws(Failure) -> String {
        let start = index + 1
        guard let end = try plainStringEnd(from: start) else {
            index = start
            return try escapedString(from: start)
        }
        index = end + 1
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// Skips the string at `index` without building it.
    private mutating func skipString() throws(Failure) {
        var position = index + 1
        while true {
            guard let quote = find(UInt8(ascii: "\""), from: position) else {
                throw .syntax("unterminated string", offset: index)
            }
            // The quote ends the string unless an odd number of backslashes precedes it.
            var backslashes = 0
            while quote - backslashes - 1 >= position, bytes[quote - backslashes - 1] == UInt8(ascii: "\\") {
                backslashes += 1
            }
            if backslashes % 2 == 0 {
                index = quote + 1
                return
            }
            position = quote + 1
        }
    }

    /// The closing quote of a string starting at `start` when the string has no escapes; nil when it has
    /// one (the caller then unescapes it). Found with `memchr`.
    private func plainStringEnd(from start: Int) throws(Failure) -> Int? {
        guard let quote = find(UInt8(ascii: "\""), from: start) else {
            throw .syntax("unterminated string", offset: start)
        }
        if find(UInt8(ascii: "\\"), from: start, before: quote) != nil { return nil }
        return quote
    }

    /// The first `byte` at or after `start` (and before `end`, default the end of input).
    private func find(_ byte: UInt8, from start: Int, before end: Int? = nil) -> Int? {
        let limit = end ?? bytes.count
        guard start < limit, let base = bytes.baseAddress else { return nil }
        guard let found = memchr(base + start, Int32(byte), limit - start) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    private mutating func escapedString(from start: Int) throws(Failure) -> String {
        var scratch = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw syntax("unterminated string") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escape)
                case UInt8(ascii: "b"): scratch.append(0x08)
                case UInt8(ascii: "f"): scratch.append(0x0C)
                case UInt8(ascii: "n"): scratch.append(0x0A)
                case UInt8(ascii: "r"): scratch.append(0x0D)
                case UInt8(ascii: "t"): scratch.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    {
                        index += 2
                        let low = try hex4()
                        if (0xDC00...0xDFFF).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            scalar = 0xFFFD
                        }
                    }
                    let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                    scratch.append(contentsOf: String(character).utf8)
                default: throw syntax("invalid escape in a string")
                }
            default:
                scratch.append(byte)
            }
        }
        throw syntax("unterminated string")
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw syntax("unterminated string") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw syntax("invalid \\u escape")
            }
            value = value << 4 | digit
        }
        return value
    }

    /// 1-based line and column of a byte offset, for messages.
    func lineAndColumn(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for position in 0..<min(offset, bytes.count) {
            if bytes[position] == 0x0A {
                line += 1
                column = 1
            } else if bytes[position] & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }
}

/// An object key as read: the bytes in the input (valid while the input is), or the unescaped text when
/// the key had escapes. Comparing keys this way costs no allocation.
struct JSONKey {
    let bytes: UnsafeBufferPointer<UInt8>
    let escaped: String?

    var string: String {
        escaped ?? String(decoding: bytes, as: UTF8.self)
    }

    /// Calls `body` with the key's UTF-8 bytes.
    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        guard var escaped else { return body(bytes) }
        return escaped.withUTF8(body)
    }

    static func == (key: JSONKey, name: StaticString) -> Bool {
        key.withBytes { bytes in
            bytes.count == name.utf8CodeUnitCount
                && bytes.elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        }
    }
}

/// Finds the field of a model that a key names, by comparing bytes (no `String` per key): keys are
/// bucketed by length and first and last byte.
struct JSONFieldTable<Field: RawRepresentable & CaseIterable & Sendable>: Sendable where Field.RawValue == String {
    private var buckets: [[(name: [UInt8], field: Field)]] = Array(repeating: [], count: 64)

    init() {
        for field in Field.allCases {
            let name = Array(field.rawValue.utf8)
            buckets[Self.bucket(name.count, name.first ?? 0, name.last ?? 0)].append((name, field))
        }
    }

    private static func bucket(_ count: Int, _ first: UInt8, _ last: UInt8) -> Int {
        (count &* 31 &+ Int(first) &* 7 &+ Int(last)) & 63
    }

    subscript(key: JSONKey) -> Field? {
        key.withBytes { bytes -> Field? in
            guard let first = bytes.first, let last = bytes.last else { return nil }
            for entry in buckets[Self.bucket(bytes.count, first, last)] where entry.name.count == bytes.count {
                let equal = entry.name.withUnsafeBufferPointer { name in
                    guard let left = name.baseAddress, let right = bytes.baseAddress else { return false }
                    return memcmp(left, right, bytes.count) == 0
                }
                if equal { return entry.field }
            }
            return nil
        }
    }
}
