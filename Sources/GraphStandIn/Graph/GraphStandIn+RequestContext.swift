// The per-request facts every Graph answer carries: request ids, the date, and the `Prefer` preferences
// (`outlook.timezone`, `outlook.body-content-type`, `IdType`) with what `Preference-Applied` reports.
import Foundation

extension GraphStandIn {
    /// Per-request facts every answer needs: ids for the headers and error bodies, and the preferences.
    struct RequestContext {
        var requestID = UUID().uuidString.lowercased()
        var clientRequestID: String
        var date = Date()
        /// The zone named in `Prefer: outlook.timezone`, with the name as sent.
        var preferredZone: (name: String, zone: TimeZone)?
        /// `Prefer: outlook.body-content-type` ("text" or "html"), lower-cased.
        var preferredBodyType: String?
        var preferencesApplied: [String] = []

        init(_ call: GraphCall) {
            clientRequestID = call.header("client-request-id") ?? ""
            if clientRequestID.isEmpty { clientRequestID = requestID }
            for preference in GraphStandIn.preferences(in: call.headers) {
                let (name, value) = preference
                switch name.lowercased() {
                case "outlook.timezone":
                    if let zone = GraphStandIn.timeZone(named: value) {
                        preferredZone = (value, zone)
                        preferencesApplied.append("outlook.timezone=\"\(value)\"")
                    }
                case "outlook.body-content-type":
                    let kind = value.lowercased()
                    if kind == "text" || kind == "html" {
                        preferredBodyType = kind
                        preferencesApplied.append("outlook.body-content-type=\"\(kind)\"")
                    }
                case "idtype":
                    preferencesApplied.append("IdType=\"\(value)\"")
                default:
                    break
                }
            }
        }
    }

    /// `name="value"` preferences of every `Prefer` header (several per header, comma-separated).
    static func preferences(in headers: [(name: String, value: String)]) -> [(String, String)] {
        var result: [(String, String)] = []
        for header in headers where header.name.caseInsensitiveCompare("Prefer") == .orderedSame {
            var current = ""
            var inQuotes = false
            var parts: [String] = []
            for character in header.value {
                if character == "\"" { inQuotes.toggle() }
                if character == "," && !inQuotes {
                    parts.append(current)
                    current = ""
                } else {
                    current.append(character)
                }
            }
            parts.append(current)
            for part in parts {
                let pieces = part.split(separator: "=", maxSplits: 1).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                guard let name = pieces.first, !name.isEmpty else { continue }
                var value = pieces.count > 1 ? pieces[1] : ""
                if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 {
                    value = String(value.dropFirst().dropLast())
                }
                result.append((name, value))
            }
        }
        return result
    }
}
