import Foundation

/// The JSON that graph-ics's commands print (`--json` of agenda, whoami, calendars, feed list, import, sync):
/// one encoder and one style for all of them. ``JSONStreamEncoder`` writes it pretty-printed (two spaces,
/// `"key": value`), keys sorted, slashes and non-ASCII text unescaped, a line feed at the end. Graph payloads
/// (`convert --to graph-json`, `import --dry-run`) come from the same encoder in the same layout, their keys
/// in the order of the Graph models.
public enum JSONOutput {
    /// The text of `value` for standard output: the document and a line feed.
    public static func text(_ value: JSONValue) throws -> String {
        String(decoding: try data(value), as: UTF8.self) + "\n"
    }

    /// The bytes of the document `value` (no line feed after it).
    public static func data(_ value: JSONValue) throws -> Data {
        var bytes: [UInt8] = []
        try JSONStreamEncoder(pretty: true).encode(value, into: &bytes)
        return Data(bytes)
    }

    /// The bytes of `value` as it is written `depth` levels deep in a document (indented for that depth), for
    /// a document written in parts.
    public static func fragment(_ value: JSONValue, depth: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try JSONStreamEncoder(pretty: true, depth: depth).encode(value, into: &bytes)
        return bytes
    }

    /// The bytes of an `Encodable` value in the same style (its keys sorted too).
    public static func data<Value: Encodable>(encoding value: Value) throws -> Data {
        try data(JSONValue(encoding: value))
    }
}

/// A JSON value built by a command for ``JSONOutput``: objects are written with their keys sorted.
public enum JSONValue: Equatable, Sendable, Encodable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A string, or `null` for nil.
    public static func string(_ text: String?) -> JSONValue {
        text.map { .string($0) } ?? .null
    }

    /// The value of a tree as `JSONSerialization` takes it: dictionaries with string keys, arrays, strings,
    /// `Bool`, integers, `Double`, `NSNull` (or a nil optional).
    public init(jsonObject: Any) throws {
        switch jsonObject {
        case is NSNull: self = .null
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .int(value)
        case let value as any BinaryInteger: self = .int(Int(value))
        case let value as Double: self = .double(value)
        case let value as String: self = .string(value)
        case let value as [Any]: self = .array(try value.map(JSONValue.init(jsonObject:)))
        case let value as [String: Any]: self = .object(try value.mapValues(JSONValue.init(jsonObject:)))
        case let value as JSONValue: self = value
        default: throw JSONStreamEncoder.InvalidValue(description: "\(type(of: jsonObject)) is not a JSON value")
        }
    }

    /// The value an `Encodable` encodes as (nil optionals left out, as `JSONEncoder` does).
    public init<Value: Encodable>(encoding value: Value) throws {
        self = try JSONValueEncoder.value(value)
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .object(let members):
            var container = encoder.container(keyedBy: AnyKey.self)
            for key in members.keys.sorted() {
                try container.encode(members[key] ?? .null, forKey: AnyKey(key))
            }
        }
    }
}

/// Builds a ``JSONValue`` from an `Encodable`: each container is a box that its parent reads when the whole
/// value is done. A value that writes nothing is an empty object, as in ``JSONStreamEncoder``.
private final class JSONValueEncoder: Encoder {
    final class Box {
        var value: JSONValue = .object([:])
        /// Nested containers: by key in an object, by position (a placeholder in `value`) in an array.
        var children: [(key: String, box: Box)] = []
        enum Kind { case single, object, array }
        var kind = Kind.single

        /// The value with the nested containers' final values folded in.
        func resolved() -> JSONValue {
            switch kind {
            case .object:
                var members: [String: JSONValue] = [:]
                if case .object(let own) = value { members = own }
                for child in children { members[child.key] = child.box.resolved() }
                return .object(members)
            case .array:
                var items: [JSONValue] = []
                if case .array(let own) = value { items = own }
                for child in children {
                    if let index = Int(child.key), items.indices.contains(index) { items[index] = child.box.resolved() }
                }
                return .array(items)
            case .single:
                return value
            }
        }
    }

    let box: Box
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(into box: Box = Box()) {
        self.box = box
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if box.kind != .object {
            box.kind = .object
            box.value = .object([:])
        }
        return KeyedEncodingContainer(Keyed<Key>(box: box))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        box.kind = .array
        box.value = .array([])
        return Unkeyed(box: box)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        Single(box: box)
    }

    /// The value of `value`, encoded through a fresh encoder.
    static func value<T: Encodable>(_ value: T) throws -> JSONValue {
        switch value {
        case let value as JSONValue: return value
        case let value as String: return .string(value)
        case let value as Bool: return .bool(value)
        case let value as Int: return .int(value)
        case let value as Double: return .double(value)
        case let value as Float: return .double(Double(value))
        case let value as any BinaryInteger: return .int(Int(value))
        default:
            let box = Box()
            try value.encode(to: JSONValueEncoder(into: box))
            return box.resolved()
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let box: Box
        var codingPath: [any CodingKey] { [] }

        private func set(_ value: JSONValue, _ key: Key) {
            guard case .object(var members) = box.value else { return }
            members[key.stringValue] = value
            box.value = .object(members)
        }

        mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            set(try JSONValueEncoder.value(value), key)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            let child = Box()
            box.children.append((key.stringValue, child))
            return JSONValueEncoder(into: child).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = Box()
            box.children.append((key.stringValue, child))
            return JSONValueEncoder(into: child).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { JSONValueEncoder(into: box) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { JSONValueEncoder(into: box) }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let box: Box
        var codingPath: [any CodingKey] { [] }
        var count: Int {
            if case .array(let items) = box.value { return items.count }
            return 0
        }

        private func append(_ value: JSONValue) {
            guard case .array(var items) = box.value else { return }
            items.append(value)
            box.value = .array(items)
        }

        mutating func encodeNil() throws { append(.null) }
        mutating func encode<T: Encodable>(_ value: T) throws { append(try JSONValueEncoder.value(value)) }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            let child = Box()
            box.children.append((String(count), child))
            append(.null)
            return JSONValueEncoder(into: child).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let child = Box()
            box.children.append((String(count), child))
            append(.null)
            return JSONValueEncoder(into: child).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { JSONValueEncoder(into: box) }
    }

    struct Single: SingleValueEncodingContainer {
        let box: Box
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() throws { box.value = .null }
        mutating func encode<T: Encodable>(_ value: T) throws { box.value = try JSONValueEncoder.value(value) }
    }
}
