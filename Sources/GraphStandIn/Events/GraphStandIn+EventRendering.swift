// An event as Graph returns it: `Prefer: outlook.timezone` and `outlook.body-content-type` applied,
// `$expand=singleValueExtendedProperties(...)`, and `$select`.
import Foundation

extension GraphStandIn {
    /// The event as Graph returns it: times in the preferred zone (UTC without one; all-day events keep
    /// their midnight wall times), the body in the preferred type, extended properties only when expanded.
    func render(
        _ event: StoredEvent, preferredZone: (name: String, zone: TimeZone)?, bodyType: String?, expand: Bool,
        expandFilter: [String]? = nil
    ) -> [String: Any] {
        var json = event.fields
        json["@odata.etag"] = "W/\"\(event.fields["changeKey"] as? String ?? "")\""
        json["id"] = event.id
        json["type"] = event.type
        json["seriesMasterId"] = event.seriesMasterID ?? NSNull()
        json["isAllDay"] = event.isAllDay
        if locked({ $0.omitsIsOrganizer }) { json["isOrganizer"] = nil }
        let zoneName = preferredZone?.name ?? "UTC"
        let zone = preferredZone?.zone ?? Self.utc
        if event.isAllDay {
            json["start"] = ["dateTime": event.startLocal.graphText, "timeZone": zoneName]
            json["end"] = ["dateTime": event.endLocal.graphText, "timeZone": zoneName]
        } else {
            json["start"] = ["dateTime": GraphDateTime(event.start, in: zone).graphText, "timeZone": zoneName]
            json["end"] = ["dateTime": GraphDateTime(event.end, in: zone).graphText, "timeZone": zoneName]
        }
        if let body = json["body"] as? [String: Any], let content = body["content"] as? String {
            let stored = (body["contentType"] as? String ?? "html").lowercased()
            let wanted = bodyType ?? "html"
            if stored != wanted {
                json["body"] = [
                    "contentType": wanted,
                    "content": wanted == "text" ? Self.plainText(fromHTML: content) : Self.html(fromText: content),
                ]
            } else {
                json["body"] = ["contentType": wanted, "content": content]
            }
        }
        if expand {
            let wanted = event.extendedProperties.filter { property in
                expandFilter.map { ids in ids.contains { Self.sameExtendedPropertyID($0, property.id) } } ?? true
            }
            json["singleValueExtendedProperties"] = wanted.map { ["id": $0.id, "value": $0.value] }
        }
        return json
    }

    /// A crude HTML-to-text conversion, like Exchange's for `outlook.body-content-type="text"`.
    static func plainText(fromHTML html: String) -> String {
        var text = html
        for breakTag in ["<br>", "<br/>", "<br />", "</p>", "</div>", "</tr>", "</li>"] {
            text = text.replacingOccurrences(of: breakTag, with: "\n", options: .caseInsensitive)
        }
        if let head = text.range(of: "<head", options: .caseInsensitive),
            let headEnd = text.range(of: "</head>", options: .caseInsensitive, range: head.lowerBound..<text.endIndex)
        {
            text.removeSubrange(head.lowerBound..<headEnd.upperBound)
        }
        var result = ""
        var inTag = false
        for character in text {
            if character == "<" {
                inTag = true
            } else if character == ">" && inTag {
                inTag = false
            } else if !inTag {
                result.append(character)
            }
        }
        let entities = [
            ("&nbsp;", " "), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&apos;", "'"),
            ("&amp;", "&"),
        ]
        for (entity, replacement) in entities {
            result = result.replacingOccurrences(of: entity, with: replacement)
        }
        return result.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Text wrapped the way Exchange stores a text body as HTML.
    static func html(fromText text: String) -> String {
        let escaped = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\r\n", with: "\n")
            .replacingOccurrences(of: "\n", with: "<br>\r\n")
        return "<html>\r\n<head>\r\n<meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\">\r\n"
            + "</head>\r\n<body>\r\n\(escaped)\r\n</body>\r\n</html>\r\n"
    }

    static func sameExtendedPropertyID(_ lhs: String, _ rhs: String) -> Bool {
        func normal(_ id: String) -> String {
            id.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ").lowercased()
        }
        return normal(lhs) == normal(rhs)
    }

    func renderForCall(_ event: StoredEvent, _ call: GraphCall, _ context: RequestContext) -> [String: Any] {
        let expansion = Self.expansion(call.query["$expand"])
        return select(
            render(
                event, preferredZone: context.preferredZone, bodyType: context.preferredBodyType,
                expand: expansion.expand, expandFilter: expansion.filter), call)
    }

    /// Reads `$expand=singleValueExtendedProperties($filter=id eq '…' or id eq '…')`: the ids named.
    static func expansion(_ raw: String?) -> (expand: Bool, filter: [String]?) {
        guard let raw, raw.lowercased().hasPrefix("singlevalueextendedproperties") else { return (false, nil) }
        guard let open = raw.firstIndex(of: "(") else { return (true, nil) }
        let inner = String(raw[raw.index(after: open)...])
        guard let regex = try? NSRegularExpression(pattern: #"id\s+eq\s+'((?:[^']|'')*)'"#, options: [.caseInsensitive])
        else { return (true, nil) }
        let ids = regex.matches(in: inner, range: NSRange(inner.startIndex..., in: inner)).compactMap { match in
            Range(match.range(at: 1), in: inner).map { inner[$0].replacingOccurrences(of: "''", with: "'") }
        }
        return (true, ids.isEmpty ? nil : ids)
    }

    static func firstMatch(_ pattern: String, in text: String) -> [String]? {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]),
            let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
        else { return nil }
        return (0..<match.numberOfRanges).map { index in
            Range(match.range(at: index), in: text).map { String(text[$0]) } ?? ""
        }
    }
}
