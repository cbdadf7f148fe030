import Foundation
import FoundationXML

/// Reading and writing the XML of WebDAV (RFC 4918), CalDAV (RFC 4791) and collection sync (RFC 6578).
///
/// Parsing goes through FoundationXML's `XMLParser` (libxml2's SAX interface) with namespaces processed and
/// external entities never resolved, after a byte scan that refuses every DTD. Writing appends bytes to a buffer.
public enum DAVXML {
    /// The deepest nesting a request body may have (the root is depth 1).
    public static let maximumDepth = 64

    /// The element tree of a request body.
    ///
    /// Refuses, before any parsing, a body holding `<!DOCTYPE` or `<!ENTITY` in any case (no DTD means no entity
    /// expansion and no external entity: billion laughs and XXE never reach the parser), and a body in an encoding
    /// that could hide such a declaration from that scan (UTF-16, UTF-32, EBCDIC, UTF-7: anything but UTF-8,
    /// US-ASCII and ISO-8859-1). Then refuses nesting deeper than `maximumDepth` and malformed XML, naming the line.
    public static func parse(_ data: Data) throws(DAVXMLError) -> DAVElement {
        try DAVXMLScreen.check(data)
        let builder = DAVTreeBuilder()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        let parsed = parser.parse()
        if let refusal = builder.refusal { throw refusal }
        guard parsed, builder.parserError == nil, let root = builder.root else {
            let line = max(builder.errorLine ?? parser.lineNumber, 1)
            throw DAVXMLError(.malformed, "the request body is not well-formed XML (line \(line))")
        }
        return root
    }
}

/// The byte checks made before a body reaches the parser.
enum DAVXMLScreen {
    static func check(_ data: Data) throws(DAVXMLError) {
        let refused: DAVXMLError? = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            return check(bytes)
        }
        if let refused { throw refused }
    }

    private static let doctype = Array("doctype".utf8)
    private static let entity = Array("entity".utf8)

    private static func check(_ bytes: UnsafeBufferPointer<UInt8>) -> DAVXMLError? {
        let count = bytes.count
        // XML 1.0 has no NUL character; UTF-16 and UTF-32 text of ASCII characters is full of them.
        if let base = bytes.baseAddress, count > 0, memchr(base, 0, count) != nil {
            return DAVXMLError(.declaration, "the request body is not UTF-8 (it holds NUL bytes), which is refused")
        }
        var index = 0
        if count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { index = 3 }
        while index < count, isSpace(bytes[index]) { index += 1 }
        if index < count && bytes[index] != UInt8(ascii: "<") {
            let line = 1 + bytes[0..<index].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            return DAVXMLError(.malformed, "the request body is not well-formed XML (line \(line))")
        }
        if let encoding = declaredEncoding(bytes, from: index) {
            let lowered = encoding.lowercased()
            let accepted = ["utf-8", "utf8", "us-ascii", "ascii", "iso-8859-1", "latin1", "iso_8859-1"]
            if !accepted.contains(lowered) {
                return DAVXMLError(
                    .declaration, "the request body declares the encoding \(encoding); only UTF-8 is accepted")
            }
        }
        // `<!` followed by DOCTYPE or ENTITY, in any case.
        var cursor = index
        while cursor + 1 < count {
            guard let found = find(UInt8(ascii: "<"), in: bytes, from: cursor) else { break }
            cursor = found + 1
            guard cursor < count, bytes[cursor] == UInt8(ascii: "!") else { continue }
            if matches(doctype, bytes, at: cursor + 1) || matches(entity, bytes, at: cursor + 1) {
                return DAVXMLError(
                    .declaration, "the request body holds a DOCTYPE or ENTITY declaration, which is refused")
            }
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func find(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress else { return nil }
        guard let hit = memchr(base + start, Int32(byte), bytes.count - start) else { return nil }
        return UnsafeRawPointer(hit) - UnsafeRawPointer(base)
    }

    private static func matches(_ word: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        guard start + word.count <= bytes.count else { return false }
        for offset in 0..<word.count {
            var byte = bytes[start + offset]
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte += 32 }
            if byte != word[offset] { return false }
        }
        return true
    }

    /// The `encoding` pseudo-attribute of an XML declaration starting at `start`, if there is one.
    private static func declaredEncoding(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> String? {
        let opening = Array("<?xml".utf8)
        guard matches(opening, bytes, at: start) else { return nil }
        var end = start
        while end + 1 < bytes.count && !(bytes[end] == UInt8(ascii: "?") && bytes[end + 1] == UInt8(ascii: ">")) {
            end += 1
        }
        let declaration = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        guard let range = declaration.range(of: "encoding") else { return nil }
        var rest = declaration[range.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        rest = rest.dropFirst()
        return String(rest.prefix { $0 != quote })
    }
}

/// The `XMLParser` delegate that builds the `DAVElement` tree and enforces the depth limit.
///
/// Used by one parse on one thread, then dropped.
final class DAVTreeBuilder: NSObject, XMLParserDelegate {
    private var stack: [DAVElement] = []
    private(set) var root: DAVElement?
    private(set) var refusal: DAVXMLError?
    private(set) var parserError: Error?
    private(set) var errorLine: Int?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        guard refusal == nil else { return }
        if stack.count >= DAVXML.maximumDepth {
            refusal = DAVXMLError(
                .tooDeep,
                "the request body nests elements deeper than \(DAVXML.maximumDepth) levels (line \(parser.lineNumber))"
            )
            parser.abortParsing()
            return
        }
        var attributes: [String: String] = [:]
        if !attributeDict.isEmpty {
            attributes.reserveCapacity(attributeDict.count)
            for (key, value) in attributeDict {
                // With namespaces processed the keys are qualified names (`prefix:local`); keep the local part.
                if let colon = key.lastIndex(of: ":") {
                    attributes[String(key[key.index(after: colon)...])] = value
                } else {
                    attributes[key] = value
                }
            }
        }
        stack.append(DAVElement(DAVName(namespaceURI ?? "", elementName), attributes: attributes))
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        guard refusal == nil, let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard refusal == nil, !stack.isEmpty else { return }
        stack[stack.count - 1].text.append(string)
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard refusal == nil, !stack.isEmpty else { return }
        stack[stack.count - 1].text.append(String(decoding: CDATABlock, as: UTF8.self))
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        if parserError == nil {
            parserError = parseError
            errorLine = parser.lineNumber
        }
    }

    // A DTD never reaches the parser (the byte scan refuses it); should one slip through, parsing stops at its
    // element or attribute declaration. FoundationXML on Linux does not report entity declarations (Darwin's does),
    // and it crashes on NOTATION and NDATA declarations before any delegate runs: the scan is the real guard.
    func parser(_ parser: XMLParser, foundElementDeclarationWithName elementName: String, model: String) {
        refuseDeclaration(parser)
    }

    func parser(
        _ parser: XMLParser, foundAttributeDeclarationWithName attributeName: String, forElement elementName: String,
        type: String?, defaultValue: String?
    ) {
        refuseDeclaration(parser)
    }

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        refuseDeclaration(parser)
    }

    func parser(
        _ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?
    ) {
        refuseDeclaration(parser)
    }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        refuseDeclaration(parser)
        return nil
    }

    private func refuseDeclaration(_ parser: XMLParser) {
        guard refusal == nil else { return }
        refusal = DAVXMLError(.declaration, "the request body holds a DOCTYPE or ENTITY declaration, which is refused")
        parser.abortParsing()
    }
}
