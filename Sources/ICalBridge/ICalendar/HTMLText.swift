/// Turns the HTML body Graph sends into the plain text a DESCRIPTION holds.
///
/// Not a browser: it keeps the words and the line structure (paragraphs, line breaks, list items, table
/// rows), drops `<head>`, `<style>` and `<script>` content, keeps link targets in angle brackets, and
/// decodes character references (numeric ones, and every HTML5 name from the table generated into
/// `HTMLEntities.swift`). The HTML itself is exported unchanged in `X-ALT-DESC`. Works on UTF-8 bytes: tags
/// and references are ASCII, everything else is copied through.
enum HTMLText {
    static func plainText(fromHTML html: String) -> String {
        var converter = Converter(Array(html.utf8))
        converter.run()
        return String(decoding: converter.output, as: UTF8.self)
    }

    private struct Converter {
        let input: [UInt8]
        var output: [UInt8] = []
        var index = 0
        var pendingSpace = false
        var skipUntil: [UInt8]?
        var pendingLink: [UInt8]?

        init(_ input: [UInt8]) {
            self.input = input
            output.reserveCapacity(input.count / 2)
        }

        static func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == 0x0C
        }

        mutating func run() {
            while index < input.count {
                if input[index] == UInt8(ascii: "<") {
                    tag()
                } else {
                    var end = index
                    while end < input.count, input[end] != UInt8(ascii: "<") { end += 1 }
                    if skipUntil == nil { appendDecoded(input[index..<end]) }
                    index = end
                }
            }
            while let last = output.last, Self.isSpace(last) { output.removeLast() }
        }

        mutating func tag() {
            guard let close = input[index...].firstIndex(of: UInt8(ascii: ">")) else {
                if skipUntil == nil { appendDecoded(input[index...]) }
                index = input.count
                return
            }
            let tag = input[(index + 1)..<close]
            index = close + 1
            if tag.starts(with: HTMLText.commentStart) {
                if !tag.reversed().starts(with: HTMLText.commentEndReversed) {
                    // An unclosed comment runs to the end of the document, as in HTML.
                    index = find(HTMLText.commentClose, from: index).map { $0 + 3 } ?? input.count
                }
                return
            }
            let name = Self.tagName(tag)
            if let waiting = skipUntil {
                if name == [UInt8(ascii: "/")] + waiting { skipUntil = nil }
                return
            }
            switch HTMLText.kinds[name] {
            case .skipped?:
                if tag.last != UInt8(ascii: "/") { skipUntil = name }
            case .lineBreak?, .block?:
                newline()
            case .listItem?:
                newline()
                output += Array("- ".utf8)
            case .cell?:
                if let last = output.last, last != 0x0A { output.append(0x09) }
            case .link?:
                if let href = Self.attribute(HTMLText.hrefPrefix, in: tag), !href.isEmpty,
                    href.first != UInt8(ascii: "#")
                {
                    pendingLink = decodeEntities(href[...])
                }
            case .linkEnd?:
                if let link = pendingLink {
                    if !output.reversed().starts(with: link.reversed()) {
                        output += Array(" <".utf8) + link + [UInt8(ascii: ">")]
                    }
                    pendingLink = nil
                }
            case nil:
                break
            }
        }

        func find(_ needle: [UInt8], from start: Int) -> Int? {
            guard needle.count <= input.count else { return nil }
            var position = start
            while position + needle.count <= input.count {
                if input[position..<(position + needle.count)].elementsEqual(needle) { return position }
                position += 1
            }
            return nil
        }

        mutating func newline() {
            pendingSpace = false
            while output.last == 0x20 { output.removeLast() }
            if output.isEmpty || output.last == 0x0A { return }
            output.append(0x0A)
        }

        /// Appends text from the input, decoding character references only where there are any.
        mutating func appendDecoded(_ text: ArraySlice<UInt8>) {
            if text.contains(UInt8(ascii: "&")) {
                appendText(decodeEntities(text)[...])
            } else {
                appendText(text)
            }
        }

        mutating func appendText(_ text: ArraySlice<UInt8>) {
            for byte in text {
                if Self.isSpace(byte) {
                    pendingSpace = true
                } else {
                    if pendingSpace, let last = output.last, last != 0x0A { output.append(0x20) }
                    pendingSpace = false
                    output.append(byte)
                }
            }
        }

        static func tagName(_ tag: ArraySlice<UInt8>) -> [UInt8] {
            var name: [UInt8] = []
            for byte in tag {
                if isSpace(byte) || (byte == UInt8(ascii: "/") && !name.isEmpty) { break }
                name.append(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)
            }
            return name
        }

        static func attribute(_ prefix: [UInt8], in tag: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
            let lowered = tag.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
            guard prefix.count <= lowered.count else { return nil }
            for start in 0...(lowered.count - prefix.count)
            where lowered[start..<(start + prefix.count)].elementsEqual(prefix) {
                var rest = tag[(tag.startIndex + start + prefix.count)...]
                guard let quote = rest.first else { return nil }
                if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                    rest = rest.dropFirst()
                    return rest.prefix { $0 != quote }
                }
                return rest.prefix { !isSpace($0) && $0 != UInt8(ascii: ">") }
            }
            return nil
        }

        func decodeEntities(_ text: ArraySlice<UInt8>) -> [UInt8] {
            guard text.contains(UInt8(ascii: "&")) else { return Array(text) }
            var result: [UInt8] = []
            var position = text.startIndex
            while position < text.endIndex {
                let byte = text[position]
                guard byte == UInt8(ascii: "&"),
                    let semicolon = text[position...].prefix(HTMLText.longestReference).firstIndex(
                        of: UInt8(ascii: ";"))
                else {
                    result.append(byte)
                    position += 1
                    continue
                }
                let name = String(decoding: text[(position + 1)..<semicolon], as: UTF8.self)
                if let decoded = HTMLText.decodeEntity(name) {
                    result += Array(decoded.utf8)
                    position = semicolon + 1
                } else {
                    result.append(byte)
                    position += 1
                }
            }
            return result
        }
    }

    /// What a tag does to the text.
    enum TagKind {
        case skipped, lineBreak, block, listItem, cell, link, linkEnd
    }

    /// Lower-cased tag names (with `/` for end tags) → kind; other tags are ignored.
    static let kinds: [[UInt8]: TagKind] = {
        var kinds: [[UInt8]: TagKind] = [:]
        for name in ["style", "script", "head", "title"] { kinds[Array(name.utf8)] = .skipped }
        kinds[Array("br".utf8)] = .lineBreak
        for name in [
            "p", "/p", "div", "/div", "tr", "/table", "table", "h1", "h2", "h3", "h4", "h5", "h6", "/h1", "/h2",
            "/h3", "/h4", "/h5", "/h6", "ul", "/ul", "ol", "/ol", "blockquote", "/blockquote", "hr",
        ] {
            kinds[Array(name.utf8)] = .block
        }
        kinds[Array("li".utf8)] = .listItem
        kinds[Array("td".utf8)] = .cell
        kinds[Array("th".utf8)] = .cell
        kinds[Array("a".utf8)] = .link
        kinds[Array("/a".utf8)] = .linkEnd
        return kinds
    }()

    static let commentStart = Array("!--".utf8)
    static let commentEndReversed = Array("--".utf8)
    static let commentClose = Array("-->".utf8)
    static let hrefPrefix = Array("href=".utf8)

    /// The longest HTML5 reference with its `&` and `;` (`&CounterClockwiseContourIntegral;`).
    static let longestReference = 33

    /// Every HTML5 named character reference (``entityRows``, generated) → its text; `nbsp` is a plain space,
    /// since a DESCRIPTION is plain text.
    static let namedEntities: [String: String] = {
        var table: [String: String] = [:]
        for entry in entityRows.utf8.split(whereSeparator: { $0 == 0x20 || $0 == 0x0A }) {
            let fields = entry.split(separator: UInt8(ascii: "="))
            guard fields.count == 2 else { continue }
            let scalars = fields[1].split(separator: UInt8(ascii: "+")).compactMap {
                UInt32(String(decoding: $0, as: UTF8.self), radix: 16).flatMap(Unicode.Scalar.init)
            }
            table[String(decoding: fields[0], as: UTF8.self)] = String(String.UnicodeScalarView(scalars))
        }
        table["nbsp"] = " "
        return table
    }()

    /// The text of a character reference without `&` and `;` (`amp`, `#233`, `#xE9`), or nil.
    static func decodeEntity(_ name: String) -> String? {
        if name.hasPrefix("#x") || name.hasPrefix("#X") {
            return UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String($0) }
        }
        if name.hasPrefix("#") {
            return UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String($0) }
        }
        return namedEntities[name]
    }
}
