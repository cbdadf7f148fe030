import Foundation

/// The JSON of `feeds.json`: written pretty-printed with sorted keys (a file people may read and diff), read
/// with errors that name the line or the key at fault.
enum FeedFileFormat {
    static func encode(_ configuration: FeedConfiguration, path: String) throws(FeedStoreError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(configuration) + Data("\n".utf8)
        } catch {
            throw FeedStoreError(.invalid, "graph-ics could not encode the feed definitions for \(path): \(error)")
        }
    }

    static func decode(_ data: Data, path: String) throws(FeedStoreError) -> FeedConfiguration {
        let configuration: FeedConfiguration
        do {
            configuration = try JSONDecoder().decode(FeedConfiguration.self, from: data)
        } catch let error as DecodingError {
            throw FeedStoreError(.damaged, "\(path) is damaged: \(describe(error, in: data)); fix or remove it")
        } catch {
            throw FeedStoreError(.damaged, "\(path) is damaged: \(error); fix or remove it")
        }
        if let (key, message) = configuration.problem() {
            throw FeedStoreError(.damaged, "\(path) is damaged: \(key) \(message)")
        }
        return configuration
    }

    /// `feeds[1].secret: expected a string`, or `not JSON at line 4, column 12`.
    static func describe(_ error: DecodingError, in data: Data) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "\(keyPath(context.codingPath + [key])) is missing"
        case .typeMismatch(let type, let context):
            return "\(keyPath(context.codingPath)) is not \(expected(type))"
        case .valueNotFound(let type, let context):
            return "\(keyPath(context.codingPath)) is null, not \(expected(type))"
        case .dataCorrupted(let context) where !context.codingPath.isEmpty:
            return "\(keyPath(context.codingPath)): \(context.debugDescription)"
        case .dataCorrupted:
            return "not JSON" + (syntaxPosition(in: data).map { " at \($0)" } ?? "")
        @unknown default:
            return "\(error)"
        }
    }

    /// `feeds[1].selection.detail`; `the file` for the top level.
    static func keyPath(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text.isEmpty ? "the file" : text
    }

    private static func expected(_ type: Any.Type) -> String {
        if type == String.self { return "a string" }
        if type == Int.self { return "a whole number" }
        if type == Bool.self { return "true or false" }
        let name = "\(type)"
        if name.hasPrefix("Array") { return "a list" }
        if name.hasPrefix("Dictionary") { return "an object" }
        return "a \(name)"
    }

    /// Where JSONSerialization stopped reading (`line 4, column 12`), from the character offset its error
    /// names; nil when it names none.
    static func syntaxPosition(in data: Data) -> String? {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return nil
        } catch {
            let text = "\((error as NSError).userInfo[NSDebugDescriptionErrorKey] ?? "")"
            guard let range = text.range(of: #"character (\d+)"#, options: .regularExpression),
                let offset = Int(text[range].dropFirst("character ".count))
            else { return nil }
            var line = 1
            var column = 1
            for byte in data.prefix(offset) {
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
            }
            return "line \(line), column \(column)"
        }
    }
}

extension FeedStore {
    /// Where a JSON file of the configuration folder went wrong, as `feeds.json`'s errors say it
    /// (`feeds[1].secret: expected a string`, `not JSON at line 4, column 12`); also for `dav.json`.
    public static func describe(_ error: DecodingError, in data: Data) -> String {
        FeedFileFormat.describe(error, in: data)
    }
}
