import Foundation

extension DAVXML {
    /// `<?xml version="1.0" encoding="utf-8"?>` and the element.
    ///
    /// The four namespaces of `DAVName` are declared once on the root as `D`, `C`, `CS` and `ICAL`; any other
    /// namespace is declared (as `x1`, `x2`, …) on the first element that uses it and stays in scope below it.
    /// An element without a namespace is written without a prefix (no default namespace is ever declared). Text
    /// and attribute values are escaped; characters XML 1.0 cannot hold become U+FFFD.
    public static func serialize(_ root: DAVElement) -> Data {
        var writer = DAVXMLWriter()
        writer.startDocument(root: root.name, attributes: root.attributes, isEmpty: root.isEmpty)
        if !root.isEmpty {
            writer.content(of: root)
            writer.end(root.name)
        }
        return writer.finish()
    }
}

extension DAVElement {
    fileprivate var isEmpty: Bool { children.isEmpty && text.isEmpty }
}

/// Builds XML as bytes: appends to one `[UInt8]`, escaping as it goes, with no intermediate tree.
///
/// A value used by one thread for one document. `start`/`end` pairs must nest; the namespace prefixes for names
/// outside the four known namespaces are scoped to the element that declared them.
struct DAVXMLWriter {
    private(set) var bytes: [UInt8] = []
    /// Namespaces outside the known four that are declared on an open element: namespace -> prefix.
    private var declared: [String: String] = [:]
    /// For each open element, the namespace it declared (to drop it from scope at its end), or nil.
    private var declaredBy: [String?] = []
    private var nextPrefix = 1

    init(capacity: Int = 4096) {
        bytes.reserveCapacity(capacity)
    }

    /// The XML declaration and the root's start tag, with the known namespaces declared.
    mutating func startDocument(root: DAVName, attributes: [String: String] = [:], isEmpty: Bool = false) {
        append(#"<?xml version="1.0" encoding="utf-8"?>"#)
        append("\n")
        start(
            root, attributes: attributes, isEmpty: isEmpty,
            extra: #" xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav""#
                + #" xmlns:CS="http://calendarserver.org/ns/" xmlns:ICAL="http://apple.com/ns/ical/""#)
    }

    /// A start tag (`<p:name a="v">`), or an empty element (`<p:name/>`) when `isEmpty`, which needs no `end`.
    mutating func start(
        _ name: DAVName, attributes: [String: String] = [:], isEmpty: Bool = false, extra: String = ""
    ) {
        bytes.append(UInt8(ascii: "<"))
        let introduced = appendName(name, declaring: true)
        append(extra)
        if !attributes.isEmpty {
            for key in attributes.keys.sorted() {
                bytes.append(UInt8(ascii: " "))
                append(key)
                append("=\"")
                appendEscaped(attributes[key] ?? "", attribute: true)
                bytes.append(UInt8(ascii: "\""))
            }
        }
        if isEmpty {
            append("/>")
            if let introduced { declared[introduced] = nil }
        } else {
            bytes.append(UInt8(ascii: ">"))
            declaredBy.append(introduced)
        }
    }

    /// The end tag of the innermost open element, which must be `name`.
    mutating func end(_ name: DAVName) {
        append("</")
        _ = appendName(name, declaring: false)
        bytes.append(UInt8(ascii: ">"))
        if let introduced = declaredBy.popLast() ?? nil { declared[introduced] = nil }
    }

    /// Escaped character data.
    mutating func text(_ string: String) {
        appendEscaped(string, attribute: false)
    }

    /// `<name>text</name>`, or `<name/>` for empty text.
    mutating func element(_ name: DAVName, text string: String) {
        if string.isEmpty {
            start(name, isEmpty: true)
        } else {
            start(name)
            text(string)
            end(name)
        }
    }

    /// A whole element: start tag, text, children, end tag.
    mutating func element(_ element: DAVElement) {
        if element.isEmpty {
            start(element.name, attributes: element.attributes, isEmpty: true)
        } else {
            start(element.name, attributes: element.attributes)
            content(of: element)
            end(element.name)
        }
    }

    /// The text and then the children of `element` (the gateway's elements carry one or the other).
    mutating func content(of element: DAVElement) {
        if !element.text.isEmpty { text(element.text) }
        for child in element.children { self.element(child) }
    }

    /// The bytes written, as `Data`.
    func finish() -> Data {
        Data(bytes)
    }

    // MARK: - Bytes

    private mutating func append(_ string: String) {
        var string = string
        string.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Writes `prefix:local`; returns the namespace it declared on this element, if it had to declare one.
    private mutating func appendName(_ name: DAVName, declaring: Bool) -> String? {
        switch name.namespace {
        case DAVName.davNamespace: append("D:")
        case DAVName.caldavNamespace: append("C:")
        case DAVName.calendarServerNamespace: append("CS:")
        case DAVName.appleICalNamespace: append("ICAL:")
        case "": break
        default:
            if let prefix = declared[name.namespace] {
                append(prefix)
                bytes.append(UInt8(ascii: ":"))
            } else if declaring {
                let prefix = "x\(nextPrefix)"
                nextPrefix += 1
                declared[name.namespace] = prefix
                append(prefix)
                bytes.append(UInt8(ascii: ":"))
                append(name.local)
                append(" xmlns:\(prefix)=\"")
                appendEscaped(name.namespace, attribute: true)
                bytes.append(UInt8(ascii: "\""))
                return name.namespace
            }
        }
        append(name.local)
        return nil
    }

    /// Appends `string` with `&`, `<`, `>` escaped (and in attributes `"`, `'`, tab, LF, CR as character
    /// references, so attribute normalisation keeps them). CR in text is written `&#13;` so that calendar data
    /// keeps its CRLF line ends through the client's parser. C0 controls other than tab, LF, CR, and U+FFFE/U+FFFF
    /// (which XML 1.0 cannot carry) become U+FFFD.
    ///
    /// Runs of bytes that need nothing are copied whole; a 256-entry table says which bytes need a look.
    private mutating func appendEscaped(_ string: String, attribute: Bool) {
        var string = string
        let table = attribute ? Self.attributeBytes : Self.textBytes
        string.withUTF8 { source in
            table.withUnsafeBufferPointer { special in
                let count = source.count
                var runStart = 0
                var index = 0
                while true {
                    while index < count && special[Int(source[index])] == 0 { index += 1 }
                    if runStart < index {
                        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<index]))
                    }
                    guard index < count else { return }
                    let byte = source[index]
                    index += 1
                    switch byte {
                    case UInt8(ascii: "&"): appendStatic("&amp;")
                    case UInt8(ascii: "<"): appendStatic("&lt;")
                    case UInt8(ascii: ">"): appendStatic("&gt;")
                    case UInt8(ascii: "\r"): appendStatic("&#13;")
                    case UInt8(ascii: "\""): appendStatic("&quot;")
                    case UInt8(ascii: "'"): appendStatic("&apos;")
                    case UInt8(ascii: "\n"): appendStatic("&#10;")
                    case UInt8(ascii: "\t"): appendStatic("&#9;")
                    case 0xEF:
                        // U+FFFE and U+FFFF are EF BF BE and EF BF BF; other EF sequences pass.
                        if index + 1 < count && source[index] == 0xBF && source[index + 1] >= 0xBE {
                            appendStatic("\u{FFFD}")
                            index += 2
                        } else {
                            bytes.append(byte)
                        }
                    default:
                        appendStatic("\u{FFFD}")  // a C0 control character
                    }
                    runStart = index
                }
            }
        }
    }

    private mutating func appendStatic(_ string: StaticString) {
        string.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Bytes that need a look in text: `&`, `<`, `>`, CR, C0 controls but tab and LF, and 0xEF (U+FFFE/U+FFFF).
    private static let textBytes: [UInt8] = (0...255).map { byte in
        switch byte {
        case 0x09, 0x0A: 0
        case 0x00..<0x20, 0x26, 0x3C, 0x3E, 0xEF: 1
        default: 0
        }
    }

    /// Bytes that need a look in attribute values: those of text, plus `"`, `'`, tab and LF.
    private static let attributeBytes: [UInt8] = (0...255).map { byte in
        switch byte {
        case 0x00..<0x20, 0x22, 0x26, 0x27, 0x3C, 0x3E, 0xEF: 1
        default: 0
        }
    }
}
