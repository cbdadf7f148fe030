import Foundation

/// Reads the Graph JSON that graph-ics accepts: a calendarView or events response (`{"value": [...]}`), a
/// single event object, or a bare array of events.
///
/// One event that does not decode does not stop the others: it becomes an error ``Diagnostic`` naming the
/// JSON key path (`value[3].start.dateTime`) and the event's id, and decoding goes on.
public struct GraphEventDocument: Sendable {
    /// The events that decoded, in input order.
    public var events: [GraphEvent]
    /// One error per event that did not decode.
    public var diagnostics: [Diagnostic]
    /// How many event objects the input held, decodable or not.
    public var count: Int

    /// Decodes `data`; `file` names the input in diagnostics.
    ///
    /// - Throws: ``ICalBridgeError`` with code `.badInput` when the input as a whole is not JSON or not
    ///   one of the accepted shapes.
    public static func decode(_ data: Data, file: String) throws(ICalBridgeError) -> GraphEventDocument {
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
        guard body.contains(where: { !Self.isJSONWhitespace($0) }) else {
            throw ICalBridgeError(.badInput, "the input is empty (expected Graph JSON)", location: file)
        }
        let root: Root
        do {
            root = try JSONDecoder().decode(Root.self, from: body)
        } catch let error as DecodingError {
            throw ICalBridgeError(.badInput, Self.describe(error, topLevel: true), location: file)
        } catch {
            throw ICalBridgeError(.badInput, "not valid JSON: \(error)", location: file)
        }
        var events: [GraphEvent] = []
        var diagnostics: [Diagnostic] = []
        events.reserveCapacity(root.entries.count)
        for entry in root.entries {
            switch entry.outcome {
            case .success(let event):
                events.append(event)
            case .failure(let message):
                diagnostics.append(
                    Diagnostic(.error, message, file: file, eventID: entry.id, subject: entry.subject)
                )
            }
        }
        if root.isSingleObject, let only = events.first, only.looksEmpty {
            throw ICalBridgeError(
                .badInput,
                "this JSON object is neither a Graph event nor a response with a \"value\" array of events",
                location: file
            )
        }
        return GraphEventDocument(events: events, diagnostics: diagnostics, count: root.entries.count)
    }

    static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// `value[3].start.dateTime`.
    static func keyPath(_ path: [any CodingKey]) -> String {
        var result = ""
        for key in path {
            if let index = key.intValue, key.stringValue.hasPrefix("Index") || key.stringValue == "\(index)" {
                result += "[\(index)]"
            } else {
                result += result.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return result.isEmpty ? "the top level" : result
    }

    static func describe(_ error: DecodingError, topLevel: Bool) -> String {
        switch error {
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                let detail = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
                return "not valid JSON" + (detail.map { " (\($0))" } ?? "")
            }
            return "\(keyPath(context.codingPath)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(keyPath(context.codingPath + [key])): missing"
        case .typeMismatch(let type, let context):
            return "\(keyPath(context.codingPath)): expected \(jsonName(of: type))"
        case .valueNotFound(let type, let context):
            return "\(keyPath(context.codingPath)): expected \(jsonName(of: type)), found null"
        @unknown default:
            return "\(error)"
        }
    }

    static func jsonName(of type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Int.Type, is Double.Type: return "a number"
        case is [Any].Type: return "an array"
        default:
            let name = "\(type)"
            if name.hasPrefix("Array") { return "an array" }
            return "an object"
        }
    }
}

extension GraphEvent {
    /// True when nothing that makes an event was decoded (a JSON object of some other kind).
    var looksEmpty: Bool {
        id == nil && iCalUId == nil && start == nil && end == nil && subject == nil
    }
}

/// The top level of a Graph JSON input, in any of the accepted shapes.
private struct Root: Decodable {
    var entries: [Entry]
    var isSingleObject = false

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            if object.contains(AnyKey("value")) {
                entries = try object.decode([Entry].self, forKey: AnyKey("value"))
            } else {
                entries = [try Entry(from: decoder)]
                isSingleObject = true
            }
        } else {
            entries = try decoder.singleValueContainer().decode([Entry].self)
        }
    }
}

/// One element of the events array: the event, or why it did not decode.
private struct Entry: Decodable {
    enum Outcome {
        case success(GraphEvent)
        case failure(String)
    }

    var outcome: Outcome
    var id: String?
    var subject: String?

    init(from decoder: any Decoder) throws {
        do {
            let event = try GraphEvent(from: decoder)
            outcome = .success(event)
            id = event.id ?? event.iCalUId
            subject = event.subject
        } catch let error as DecodingError {
            outcome = .failure(GraphEventDocument.describe(error, topLevel: false))
            let object = try? decoder.container(keyedBy: AnyKey.self)
            id = (try? object?.decodeIfPresent(String.self, forKey: AnyKey("id"))) ?? nil
            subject = (try? object?.decodeIfPresent(String.self, forKey: AnyKey("subject"))) ?? nil
        }
    }
}

struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) {
        stringValue = string
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }
}
