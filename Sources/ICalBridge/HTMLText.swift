/// Turns the HTML body Graph sends into the plain text a DESCRIPTION holds.
///
/// Not a browser: it keeps the words and the line structure (paragraphs, line breaks, list items, table
/// rows), drops `<head>`, `<style>` and `<script>` content, keeps link targets in angle brackets, and
/// decodes character references. The HTML itself is exported unchanged in `X-ALT-DESC`.
enum HTMLText {
    static func plainText(fromHTML html: String) -> String {
        var output = ""
        var pendingSpace = false
        var skipUntil: String?
        var pendingLink: String?
        var index = html.startIndex
        func newline(_ count: Int = 1) {
            pendingSpace = false
            while output.last == " " { output.removeLast() }
            var existing = 0
            for character in output.reversed() {
                guard character == "\n" else { break }
                existing += 1
            }
            if output.isEmpty { return }
            if existing < count { output += String(repeating: "\n", count: count - existing) }
        }
        func append(_ text: Substring) {
            for character in text {
                if character.isWhitespace {
                    pendingSpace = true
                } else {
                    if pendingSpace, let last = output.last, last != "\n" { output.append(" ") }
                    pendingSpace = false
                    output.append(character)
                }
            }
        }
        while index < html.endIndex {
            let character = html[index]
            if character == "<" {
                guard let close = html[index...].firstIndex(of: ">") else {
                    append(decodeEntities(html[index...])[...])
                    break
                }
                let tag = html[html.index(after: index)..<close]
                index = html.index(after: close)
                if tag.hasPrefix("!--") {
                    if !tag.hasSuffix("--"), let end = html[index...].range(of: "-->") {
                        index = end.upperBound
                    }
                    continue
                }
                let name = tagName(tag)
                if let waiting = skipUntil {
                    if name == "/" + waiting { skipUntil = nil }
                    continue
                }
                switch name {
                case "style", "script", "head", "title":
                    if !tag.hasSuffix("/") { skipUntil = name }
                case "br":
                    newline()
                case "p", "/p", "div", "/div", "tr", "/table", "table", "h1", "h2", "h3", "h4", "h5", "h6",
                    "/h1", "/h2", "/h3", "/h4", "/h5", "/h6", "ul", "/ul", "ol", "/ol", "blockquote", "/blockquote",
                    "hr":
                    newline()
                case "li":
                    newline()
                    output += "- "
                case "td", "th":
                    if let last = output.last, last != "\n" { output += "\t" }
                case "a":
                    if let href = attribute("href", in: tag), !href.isEmpty, !href.hasPrefix("#") {
                        pendingLink = decodeEntities(href[...])
                    }
                case "/a":
                    if let link = pendingLink {
                        if !output.hasSuffix(link) { output += " <\(link)>" }
                        pendingLink = nil
                    }
                default:
                    break
                }
                continue
            }
            let next = html[index...].firstIndex(of: "<") ?? html.endIndex
            if skipUntil == nil { append(decodeEntities(html[index..<next])[...]) }
            index = next
        }
        while output.last?.isWhitespace == true { output.removeLast() }
        return output
    }

    private static func tagName(_ tag: Substring) -> String {
        var name = ""
        for character in tag {
            if character.isWhitespace || character == ">" || (character == "/" && !name.isEmpty) { break }
            name.append(character)
        }
        return name.lowercased()
    }

    private static func attribute(_ name: String, in tag: Substring) -> Substring? {
        guard let range = tag.range(of: name + "=", options: .caseInsensitive) else { return nil }
        var rest = tag[range.upperBound...]
        guard let quote = rest.first else { return nil }
        if quote == "\"" || quote == "'" {
            rest = rest.dropFirst()
            return rest.prefix { $0 != quote }
        }
        return rest.prefix { !$0.isWhitespace && $0 != ">" }
    }

    static let namedEntities: [Substring: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "ndash": "–", "mdash": "—",
        "hellip": "…", "euro": "€", "copy": "©", "reg": "®", "trade": "™", "laquo": "«", "raquo": "»",
        "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”", "bull": "•", "middot": "·", "auml": "ä",
        "ouml": "ö", "uuml": "ü", "Auml": "Ä", "Ouml": "Ö", "Uuml": "Ü", "szlig": "ß", "eacute": "é",
        "egrave": "è", "agrave": "à", "ccedil": "ç", "deg": "°", "times": "×",
    ]

    static func decodeEntities(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            guard character == "&", let semicolon = text[index...].prefix(12).firstIndex(of: ";") else {
                result.append(character)
                index = text.index(after: index)
                continue
            }
            let name = text[text.index(after: index)..<semicolon]
            var decoded: String?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                decoded = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String($0) }
            } else if name.hasPrefix("#") {
                decoded = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String($0) }
            } else {
                decoded = namedEntities[name]
            }
            if let decoded {
                result += decoded
                index = text.index(after: semicolon)
            } else {
                result.append(character)
                index = text.index(after: index)
            }
        }
        return result
    }
}
