import Foundation

/// Writes an `Encodable` value as JSON straight into bytes, in the order the value encodes its fields (the
/// declaration order, for synthesized conformances), with `nil` optionals left out and slashes unescaped.
///
/// graph-ics writes every Graph payload this way: Foundation's `JSONEncoder` first builds a tree of boxed
/// values and then serialises it, which cost more than the whole iCalendar → Graph conversion of a large
/// file. Output is deterministic because field order is. Not for values that ask for the coding path or
/// encode non-finite numbers (those throw).
struct JSONStreamEncoder {
    /// Indent nested objects and arrays by two spaces, one field per line.
    var pretty = false
    /// How deep the value sits in the document it becomes part of (for the indentation of `pretty`).
    var depth = 0

    /// Appends the JSON text of `value` to `output`.
    func encode<Value: Encodable>(_ value: Value, into output: inout [UInt8]) throws {
        let sink = Sink(pretty: pretty)
        sink.depth = depth
        swap(&sink.bytes, &output)
        defer { swap(&sink.bytes, &output) }
        try sink.write(value)
    }

    /// Appends what `body` writes into a sink set up like this encoder.
    func write(into output: inout [UInt8], _ body: (Sink) throws -> Void) throws {
        let sink = Sink(pretty: pretty)
        sink.depth = depth
        swap(&sink.bytes, &output)
        defer { swap(&sink.bytes, &output) }
        try body(sink)
    }

    /// The JSON text of `value`.
    func encode<Value: Encodable>(_ value: Value) throws -> Data {
        var output: [UInt8] = []
        try encode(value, into: &output)
        return Data(output)
    }

    struct InvalidValue: Error, CustomStringConvertible {
        var description: String
    }

    /// The output and the layout state shared by every container of one encoding.
    final class Sink {
        var bytes: [UInt8] = []
        let pretty: Bool
        var depth = 0
        /// Containers opened with `nestedContainer`, which their owner never closes explicitly: each is
        /// closed when its parent writes again or ends.
        var pending: [Writer] = []

        func closePending(deeperThan level: Int) {
            while let last = pending.last, last.level > level {
                pending.removeLast()
                last.close()
            }
        }

        init(pretty: Bool) {
            self.pretty = pretty
        }

        func write<Value: Encodable>(_ value: Value) throws {
            // Metatype checks, not `as?` casts: a dynamic cast per value cost more than writing it.
            if Value.self == String.self {
                string(unsafeBitCast(value, to: String.self))
            } else if Value.self == Bool.self {
                literal(unsafeBitCast(value, to: Bool.self) ? "true" : "false")
            } else if Value.self == Int.self {
                literal(String(unsafeBitCast(value, to: Int.self)))
            } else if Value.self == Double.self {
                try double(unsafeBitCast(value, to: Double.self))
            } else {
                let encoder = Writer(sink: self)
                try value.encode(to: encoder)
                closePending(deeperThan: depth)
                encoder.close()
            }
        }

        func literal(_ text: String) {
            bytes.append(contentsOf: text.utf8)
        }

        func double(_ number: Double) throws {
            guard number.isFinite else { throw InvalidValue(description: "\(number) is not a JSON number") }
            if number == number.rounded(.towardZero), abs(number) < 1e15 {
                literal(String(Int(number)))
            } else {
                literal(String(number))
            }
        }

        /// Opens an object or array.
        func open(_ bracket: UInt8) {
            bytes.append(bracket)
            depth += 1
        }

        /// Closes an object or array that had `count` members.
        func close(_ bracket: UInt8, count: Int) {
            depth -= 1
            if pretty && count > 0 { newline() }
            bytes.append(bracket)
        }

        /// Starts the member after `count` others.
        func separate(after count: Int) {
            if count > 0 { bytes.append(UInt8(ascii: ",")) }
            if pretty { newline() }
        }

        func key(_ name: String) {
            string(name)
            bytes.append(UInt8(ascii: ":"))
            if pretty { bytes.append(UInt8(ascii: " ")) }
        }

        private func newline() {
            // One copy of a prepared line start, not a byte-by-byte append of the indentation.
            let length = 1 + depth * 2
            if length <= Self.lineStart.count {
                Self.lineStart.withUnsafeBufferPointer { bytes.append(contentsOf: $0.prefix(length)) }
            } else {
                bytes.append(0x0A)
                bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
            }
        }

        /// A line feed and the indentation of 31 levels.
        private static let lineStart: [UInt8] = [0x0A] + Array(repeating: UInt8(ascii: " "), count: 62)

        func string(_ text: String) {
            var text = text
            text.withUTF8 { source in
                bytes.append(UInt8(ascii: "\""))
                var runStart = 0
                for index in 0..<source.count {
                    let byte = source[index]
                    guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<index]))
                    runStart = index + 1
                    bytes.append(UInt8(ascii: "\\"))
                    switch byte {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                    case 0x0A: bytes.append(UInt8(ascii: "n"))
                    case 0x0D: bytes.append(UInt8(ascii: "r"))
                    case 0x09: bytes.append(UInt8(ascii: "t"))
                    case 0x08: bytes.append(UInt8(ascii: "b"))
                    case 0x0C: bytes.append(UInt8(ascii: "f"))
                    default:
                        let hex: [UInt8] = Array("0123456789abcdef".utf8)
                        bytes.append(contentsOf: [
                            UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)],
                            hex[Int(byte & 0x0F)],
                        ])
                    }
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<source.count]))
                bytes.append(UInt8(ascii: "\""))
            }
        }
    }

    /// The encoder handed to one value's `encode(to:)`: it opens the container the value asks for and closes
    /// it when the value is done.
    final class Writer: Encoder {
        enum Opened {
            case nothing, object, array, single
        }

        let sink: Sink
        var opened = Opened.nothing
        /// The sink's depth inside this writer's container.
        var level = 0
        /// Members written so far into the opened object or array.
        var count = 0

        init(sink: Sink) {
            self.sink = sink
        }

        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            if opened == .nothing {
                opened = .object
                sink.open(UInt8(ascii: "{"))
                level = sink.depth
            }
            return KeyedEncodingContainer(Keyed<Key>(writer: self))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            if opened == .nothing {
                opened = .array
                sink.open(UInt8(ascii: "["))
                level = sink.depth
            }
            return Unkeyed(writer: self)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            if opened == .nothing { opened = .single }
            return Single(writer: self)
        }

        /// A writer for a container nested with `nestedContainer`, closed by the sink later.
        func nested() -> Writer {
            let child = Writer(sink: sink)
            sink.pending.append(child)
            return child
        }

        /// Ends the value: closes its container; a value that wrote nothing is an empty object.
        func close() {
            switch opened {
            case .object: sink.close(UInt8(ascii: "}"), count: count)
            case .array: sink.close(UInt8(ascii: "]"), count: count)
            case .nothing: sink.literal("{}")
            case .single: break
            }
        }

        func member(key: String?) {
            sink.closePending(deeperThan: level)
            sink.separate(after: count)
            count += 1
            if let key { sink.key(key) }
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let writer: Writer
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) throws {
            writer.member(key: key.stringValue)
            writer.sink.literal("null")
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            writer.member(key: key.stringValue)
            try writer.sink.write(value)
        }

        mutating func encode(_ value: String, forKey key: Key) throws {
            writer.member(key: key.stringValue)
            writer.sink.string(value)
        }

        mutating func encode(_ value: Bool, forKey key: Key) throws {
            writer.member(key: key.stringValue)
            writer.sink.literal(value ? "true" : "false")
        }

        mutating func encode(_ value: Int, forKey key: Key) throws {
            writer.member(key: key.stringValue)
            writer.sink.literal(String(value))
        }

        mutating func encode(_ value: Double, forKey key: Key) throws {
            writer.member(key: key.stringValue)
            try writer.sink.double(value)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type,
            forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            writer.member(key: key.stringValue)
            return writer.nested().container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            writer.member(key: key.stringValue)
            return writer.nested().unkeyedContainer()
        }

        // Class hierarchies are not among graph-ics's Graph models; a superclass encodes into the same object.
        mutating func superEncoder() -> any Encoder { writer }
        mutating func superEncoder(forKey key: Key) -> any Encoder { writer }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let writer: Writer
        var codingPath: [any CodingKey] { [] }
        var count: Int { writer.count }

        mutating func encodeNil() throws {
            writer.member(key: nil)
            writer.sink.literal("null")
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            writer.member(key: nil)
            try writer.sink.write(value)
        }

        mutating func encode(_ value: String) throws {
            writer.member(key: nil)
            writer.sink.string(value)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            writer.member(key: nil)
            return writer.nested().container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            writer.member(key: nil)
            return writer.nested().unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { writer }
    }

    struct Single: SingleValueEncodingContainer {
        let writer: Writer
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() throws { writer.sink.literal("null") }
        mutating func encode<T: Encodable>(_ value: T) throws { try writer.sink.write(value) }
    }
}
