/// The expanded name of an XML element in WebDAV and CalDAV: a namespace URI and a local name.
///
/// Elements are matched on (namespace, local name), never on the prefix a client chose. An element outside any
/// namespace has the namespace "".
public struct DAVName: Hashable, Sendable, CustomStringConvertible {
    public let namespace: String
    public let local: String

    public init(_ namespace: String, _ local: String) {
        self.namespace = namespace
        self.local = local
    }

    public static let davNamespace = "DAV:"
    public static let caldavNamespace = "urn:ietf:params:xml:ns:caldav"
    public static let calendarServerNamespace = "http://calendarserver.org/ns/"
    public static let appleICalNamespace = "http://apple.com/ns/ical/"

    public static func dav(_ local: String) -> DAVName { DAVName(davNamespace, local) }
    public static func caldav(_ local: String) -> DAVName { DAVName(caldavNamespace, local) }
    public static func calendarServer(_ local: String) -> DAVName { DAVName(calendarServerNamespace, local) }
    public static func appleICal(_ local: String) -> DAVName { DAVName(appleICalNamespace, local) }

    /// Clark notation, `{DAV:}getetag`, as Radicale and SabreDAV print names.
    public var description: String { "{\(namespace)}\(local)" }
}

/// An element of a request or an answer: parsed from a request body, or built for a response.
///
/// A value type with no parent links; `text` is the element's own character data (CDATA included), untrimmed,
/// and `attributes` maps an attribute's local name to its value.
public struct DAVElement: Sendable, Equatable {
    public var name: DAVName
    public var attributes: [String: String]
    public var children: [DAVElement]
    public var text: String

    public init(_ name: DAVName, text: String = "", children: [DAVElement] = [], attributes: [String: String] = [:]) {
        self.name = name
        self.text = text
        self.children = children
        self.attributes = attributes
    }

    /// The first direct child with this name.
    public func first(_ name: DAVName) -> DAVElement? {
        children.first { $0.name == name }
    }

    /// Every direct child with this name, in document order.
    public func all(_ name: DAVName) -> [DAVElement] {
        children.filter { $0.name == name }
    }

    /// The text with leading and trailing XML white space removed (an href, a sync token, a number).
    public var trimmedText: String {
        text.trimmingXMLWhitespace()
    }
}

extension String {
    /// Drops leading and trailing space, tab, CR and LF (XML's white space), nothing else.
    func trimmingXMLWhitespace() -> String {
        let scalars = unicodeScalars
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
        }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        if first == scalars.startIndex && scalars.index(after: last) == scalars.endIndex { return self }
        return String(scalars[first...last])
    }
}
