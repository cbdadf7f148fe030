import Foundation

/// One entry of a page's `value` array: its own bytes, and the few top-level fields a caller asked for.
public struct GraphPageEntry: Sendable, Equatable {
    /// The entry's JSON object exactly as Graph sent it (a slice of the page, copied).
    public var raw: Data
    /// The asked-for top-level fields whose values are strings, by name.
    public var fields: [String: String]
    /// Whether the entry has an `@removed` member (a delta round's deletion).
    public var isRemoved: Bool
}

extension GraphPage {
    /// The objects of the page's `value` array, in order, each as its bytes and `fields` (top-level
    /// strings), read once with graph-ics's JSON reader: a delta round of thousands of events is read
    /// without building a dictionary per event or serialising it again. Nil when the page is not a JSON
    /// object with a `value` array; elements that are not objects are left out.
    public static func entries(in data: Data, fields: [String]) -> [GraphPageEntry]? {
        let content = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
        let wanted = fields.map { Array($0.utf8) }
        return content.withUnsafeBytes { raw -> [GraphPageEntry]? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var reader = JSONReader(bytes)
            var entries: [GraphPageEntry]?
            do throws(JSONReader.Failure) {
                reader.skipWhitespace()
                let isObject = try reader.object { reader, key throws(JSONReader.Failure) in
                    guard key == "value" else { return try reader.skip() }
                    var found: [GraphPageEntry] = []
                    let isArray = try reader.array { reader, _ throws(JSONReader.Failure) in
                        if let entry = try entry(&reader, bytes: bytes, fields: fields, wanted: wanted) {
                            found.append(entry)
                        }
                    }
                    entries = isArray ? found : nil
                }
                return isObject ? entries : nil
            } catch {
                return nil
            }
        }
    }

    /// Reads one element of `value`: an object's bytes and wanted fields; nil (consumed) for anything else.
    private static func entry(
        _ reader: inout JSONReader, bytes: UnsafeBufferPointer<UInt8>, fields: [String], wanted: [[UInt8]]
    ) throws(JSONReader.Failure) -> GraphPageEntry? {
        guard reader.peek() == UInt8(ascii: "{") else {
            try reader.skip()
            return nil
        }
        let start = reader.index
        var entry = GraphPageEntry(raw: Data(), fields: [:], isRemoved: false)
        try reader.object { reader, key throws(JSONReader.Failure) in
            if key == "@removed" {
                entry.isRemoved = true
                return try reader.skip()
            }
            let index = key.withBytes { key in wanted.firstIndex { $0.elementsEqual(key) } }
            guard let index, reader.peek() == UInt8(ascii: "\"") else { return try reader.skip() }
            entry.fields[fields[index]] = try reader.string()
        }
        entry.raw = Data(UnsafeBufferPointer(rebasing: bytes[start..<reader.index]))
        return entry
    }
}
