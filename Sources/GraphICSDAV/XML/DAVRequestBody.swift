import Foundation

/// What a PROPFIND (or a report's `prop`, `allprop`, `propname`) asks for.
public enum DAVPropertySelection: Sendable, Equatable {
    /// `<allprop/>` (with the names of `<include>`), and an empty PROPFIND body.
    case all(include: [DAVName])
    /// `<propname/>`.
    case names
    /// `<prop>…</prop>`, in document order.
    case properties([DAVName])
}

/// `C:time-range` (RFC 4791 §9.9): either end may be missing (Apple sends only a start).
public struct DAVTimeRange: Sendable, Equatable {
    public var start: Date?
    public var end: Date?

    public init(start: Date?, end: Date?) {
        self.start = start
        self.end = end
    }
}

/// `C:text-match` (RFC 4791 §9.7.5).
public struct DAVTextMatch: Sendable, Equatable {
    public var text: String
    /// `negate-condition="yes"`.
    public var negate: Bool
    /// `i;ascii-casemap` when the request names none.
    public var collation: String

    public init(text: String, negate: Bool = false, collation: String = "i;ascii-casemap") {
        self.text = text
        self.negate = negate
        self.collation = collation
    }
}

/// `C:prop-filter` (RFC 4791 §9.7.2).
public struct DAVPropertyFilter: Sendable, Equatable {
    public var name: String
    public var isNotDefined: Bool
    public var timeRange: DAVTimeRange?
    public var textMatch: DAVTextMatch?
    public var parameters: [DAVParameterFilter]

    public init(
        name: String, isNotDefined: Bool = false, timeRange: DAVTimeRange? = nil, textMatch: DAVTextMatch? = nil,
        parameters: [DAVParameterFilter] = []
    ) {
        self.name = name
        self.isNotDefined = isNotDefined
        self.timeRange = timeRange
        self.textMatch = textMatch
        self.parameters = parameters
    }
}

/// `C:param-filter` (RFC 4791 §9.7.3).
public struct DAVParameterFilter: Sendable, Equatable {
    public var name: String
    public var isNotDefined: Bool
    public var textMatch: DAVTextMatch?

    public init(name: String, isNotDefined: Bool = false, textMatch: DAVTextMatch? = nil) {
        self.name = name
        self.isNotDefined = isNotDefined
        self.textMatch = textMatch
    }
}

/// `C:comp-filter` (RFC 4791 §9.7.1).
public struct DAVComponentFilter: Sendable, Equatable {
    public var name: String
    public var isNotDefined: Bool
    public var timeRange: DAVTimeRange?
    public var components: [DAVComponentFilter]
    public var properties: [DAVPropertyFilter]

    public init(
        name: String, isNotDefined: Bool = false, timeRange: DAVTimeRange? = nil,
        components: [DAVComponentFilter] = [], properties: [DAVPropertyFilter] = []
    ) {
        self.name = name
        self.isNotDefined = isNotDefined
        self.timeRange = timeRange
        self.components = components
        self.properties = properties
    }
}

/// A REPORT request.
public enum DAVReport: Sendable, Equatable {
    /// `C:calendar-multiget` (hrefs as sent, white space around them dropped).
    case multiget(properties: DAVPropertySelection, hrefs: [String])
    /// `C:calendar-query`; `filter` is the top comp-filter (VCALENDAR).
    case query(properties: DAVPropertySelection, filter: DAVComponentFilter?)
    /// `D:sync-collection` (RFC 6578 §6.1); token "" asks for the initial sync; `limit` is `D:limit/D:nresults`.
    case syncCollection(token: String, level: String, limit: Int?, properties: DAVPropertySelection)
    /// Any other report (free-busy-query, expand-property, …), named by its root element.
    case unsupported(DAVName)
}

/// `D:propertyupdate` of a PROPPATCH (RFC 4918 §14.19).
public struct DAVPropertyUpdate: Sendable, Equatable {
    /// The property elements inside `<set><prop>`, with their content, in document order.
    public var set: [DAVElement]
    /// The names inside `<remove><prop>`, in document order.
    public var remove: [DAVName]

    public init(set: [DAVElement], remove: [DAVName]) {
        self.set = set
        self.remove = remove
    }
}

/// Reads the XML bodies of PROPFIND, REPORT and PROPPATCH into values.
///
/// Every function parses with `DAVXML.parse` (so the same refusals apply) and throws `.unexpected` when the root
/// element is not the one the method takes, or a value inside (a date, a number) cannot be read.
public enum DAVRequestBody {
    /// A PROPFIND body; an empty body (or one of white space only) is `.all(include: [])` (RFC 4918 §9.1).
    public static func propfind(_ body: Data) throws(DAVXMLError) -> DAVPropertySelection {
        if isBlank(body) { return .all(include: []) }
        let root = try DAVXML.parse(body)
        guard root.name == .dav("propfind") else {
            throw unexpected(root.name, expected: "a DAV: propfind element")
        }
        return selection(in: root) ?? .all(include: [])
    }

    /// A REPORT body.
    public static func report(_ body: Data) throws(DAVXMLError) -> DAVReport {
        if isBlank(body) {
            throw DAVXMLError(.unexpected, "the REPORT request has no body; it must name the report")
        }
        return try report(DAVXML.parse(body))
    }

    /// A REPORT body already parsed with `DAVXML.parse` (to read it once and also ask for `expansion(in:)`).
    public static func report(_ root: DAVElement) throws(DAVXMLError) -> DAVReport {
        switch root.name {
        case .caldav("calendar-multiget"):
            let hrefs = root.all(.dav("href")).map(\.trimmedText).filter { !$0.isEmpty }
            return .multiget(properties: selection(in: root) ?? .all(include: []), hrefs: hrefs)
        case .caldav("calendar-query"):
            var filter: DAVComponentFilter?
            if let top = root.first(.caldav("filter"))?.first(.caldav("comp-filter")) {
                filter = try componentFilter(top)
            }
            return .query(properties: selection(in: root) ?? .all(include: []), filter: filter)
        case .dav("sync-collection"):
            let token = root.first(.dav("sync-token"))?.trimmedText ?? ""
            let level = root.first(.dav("sync-level"))?.trimmedText ?? "1"
            var limit: Int?
            if let nresults = root.first(.dav("limit"))?.first(.dav("nresults")) {
                guard let value = Int(nresults.trimmedText), value > 0 else {
                    throw DAVXMLError(
                        .unexpected,
                        "the sync-collection limit \"\(nresults.trimmedText)\" is not a positive whole number")
                }
                limit = value
            }
            return .syncCollection(
                token: token, level: level, limit: limit, properties: selection(in: root) ?? .all(include: []))
        case .dav("propfind"), .dav("propertyupdate"):
            throw unexpected(
                root.name, expected: "a report such as calendar-query, calendar-multiget or sync-collection")
        default:
            return .unsupported(root.name)
        }
    }

    /// The range of `<C:calendar-data><C:expand start=… end=…/></C:calendar-data>` in the `prop` of a
    /// calendar-query or calendar-multiget (RFC 4791 §9.6.5: answer with the instances in that range, in UTC, as
    /// python-caldav asks with `expand=True`), or nil when the report asks for no expansion.
    public static func expansion(in root: DAVElement) throws(DAVXMLError) -> DAVTimeRange? {
        guard let expand = root.first(.dav("prop"))?.first(.caldav("calendar-data"))?.first(.caldav("expand")) else {
            return nil
        }
        let range = try timeRange(expand)
        guard range.start != nil, range.end != nil else {
            throw DAVXMLError(.unexpected, "the expand element needs both a start and an end")
        }
        return range
    }

    /// A PROPPATCH body.
    public static func propertyUpdate(_ body: Data) throws(DAVXMLError) -> DAVPropertyUpdate {
        if isBlank(body) {
            throw DAVXMLError(.unexpected, "the PROPPATCH request has no body; it must hold a DAV: propertyupdate")
        }
        let root = try DAVXML.parse(body)
        guard root.name == .dav("propertyupdate") else {
            throw unexpected(root.name, expected: "a DAV: propertyupdate element")
        }
        var update = DAVPropertyUpdate(set: [], remove: [])
        for instruction in root.children {
            switch instruction.name {
            case .dav("set"):
                for prop in instruction.all(.dav("prop")) { update.set.append(contentsOf: prop.children) }
            case .dav("remove"):
                for prop in instruction.all(.dav("prop")) {
                    update.remove.append(contentsOf: prop.children.map(\.name))
                }
            default:
                continue
            }
        }
        return update
    }

    /// CalDAV's UTC date-time form (RFC 4791 §9.9), `20060104T000000Z`; nil for anything else.
    public static func date(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
            let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(month, year: year), hour <= 23, minute <= 59,
            second <= 60
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    // MARK: - Pieces

    private static func isBlank(_ body: Data) -> Bool {
        body.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }

    private static func unexpected(_ name: DAVName, expected: String) -> DAVXMLError {
        DAVXMLError(.unexpected, "the request body holds \(name) where \(expected) was expected")
    }

    /// The `allprop` / `propname` / `prop` child of a PROPFIND or a report, or nil when there is none.
    private static func selection(in parent: DAVElement) -> DAVPropertySelection? {
        for child in parent.children where child.name.namespace == DAVName.davNamespace {
            switch child.name.local {
            case "allprop":
                let include = parent.all(.dav("include")).flatMap { $0.children.map(\.name) }
                return .all(include: include)
            case "propname":
                return .names
            case "prop":
                return .properties(child.children.map(\.name))
            default:
                continue
            }
        }
        return nil
    }

    private static func componentFilter(_ element: DAVElement) throws(DAVXMLError) -> DAVComponentFilter {
        var filter = DAVComponentFilter(name: try nameAttribute(element))
        for child in element.children where child.name.namespace == DAVName.caldavNamespace {
            switch child.name.local {
            case "is-not-defined": filter.isNotDefined = true
            case "time-range": filter.timeRange = try timeRange(child)
            case "comp-filter": filter.components.append(try componentFilter(child))
            case "prop-filter": filter.properties.append(try propertyFilter(child))
            default: continue
            }
        }
        return filter
    }

    private static func propertyFilter(_ element: DAVElement) throws(DAVXMLError) -> DAVPropertyFilter {
        var filter = DAVPropertyFilter(name: try nameAttribute(element))
        for child in element.children where child.name.namespace == DAVName.caldavNamespace {
            switch child.name.local {
            case "is-not-defined": filter.isNotDefined = true
            case "time-range": filter.timeRange = try timeRange(child)
            case "text-match": filter.textMatch = textMatch(child)
            case "param-filter": filter.parameters.append(try parameterFilter(child))
            default: continue
            }
        }
        return filter
    }

    private static func parameterFilter(_ element: DAVElement) throws(DAVXMLError) -> DAVParameterFilter {
        var filter = DAVParameterFilter(name: try nameAttribute(element))
        for child in element.children where child.name.namespace == DAVName.caldavNamespace {
            switch child.name.local {
            case "is-not-defined": filter.isNotDefined = true
            case "text-match": filter.textMatch = textMatch(child)
            default: continue
            }
        }
        return filter
    }

    private static func textMatch(_ element: DAVElement) -> DAVTextMatch {
        DAVTextMatch(
            text: element.text,
            negate: element.attributes["negate-condition"]?.trimmingXMLWhitespace().lowercased() == "yes",
            collation: element.attributes["collation"] ?? "i;ascii-casemap")
    }

    private static func nameAttribute(_ element: DAVElement) throws(DAVXMLError) -> String {
        guard let name = element.attributes["name"]?.trimmingXMLWhitespace(), !name.isEmpty else {
            throw DAVXMLError(.unexpected, "the \(element.name.local) element has no name attribute")
        }
        return name
    }

    private static func timeRange(_ element: DAVElement) throws(DAVXMLError) -> DAVTimeRange {
        func bound(_ attribute: String) throws(DAVXMLError) -> Date? {
            guard let text = element.attributes[attribute] else { return nil }
            guard let date = date(text.trimmingXMLWhitespace()) else {
                throw DAVXMLError(
                    .unexpected,
                    "the time-range \(attribute) \"\(text)\" is not a UTC date-time such as 20060104T000000Z")
            }
            return date
        }
        let range = DAVTimeRange(start: try bound("start"), end: try bound("end"))
        if range.start == nil && range.end == nil {
            throw DAVXMLError(.unexpected, "the time-range element has neither a start nor an end")
        }
        return range
    }

    private static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
