internal import CLibical
import Foundation

/// The text of a VEVENT: its body (DESCRIPTION, URL, X-ALT-DESC) and the people in it (ORGANIZER, ATTENDEE).
extension EventDecoder {
    /// DESCRIPTION, URL, and (unless ``ImportSettings/notifiesAttendees``) ORGANIZER and ATTENDEEs as text;
    /// X-ALT-DESC as HTML.
    func writeBody(_ event: inout GraphEvent, component: OpaquePointer) {
        var parts: [String] = []
        if let description = ICalComponent.value(of: "DESCRIPTION", in: component)?.trimmingSpaces(),
            !description.isEmpty
        {
            parts.append(description)
        }
        if let url = ICalComponent.value(of: "URL", in: component), !url.isEmpty,
            !parts.contains(where: { ICalText.contains($0, url) })
        {
            parts.append(url)
        }
        if !settings.notifiesAttendees {
            var people: [String] = []
            if let organizer = icalcomponent_get_first_property(component, ICAL_ORGANIZER_PROPERTY) {
                people.append("Organizer: " + Self.person(organizer))
            }
            let attendees = Self.properties(ICAL_ATTENDEE_PROPERTY, in: component).map(Self.person)
            if !attendees.isEmpty { people.append("Attendees: " + attendees.joined(separator: ", ")) }
            if !people.isEmpty { parts.append(people.joined(separator: "\n")) }
        }
        let text = parts.joined(separator: "\n\n")
        if let html = Self.altDescriptionHTML(component) {
            let extra = parts.dropFirst().map { "<p>" + Self.escapeHTML($0, lineBreak: "<br>") + "</p>" }
            event.body = GraphItemBody(contentType: "html", content: html + extra.joined())
        } else if !text.isEmpty {
            event.body = GraphItemBody(contentType: "text", content: text)
        }
    }

    static func altDescriptionHTML(_ component: OpaquePointer) -> String? {
        for property in properties(ICAL_X_PROPERTY, in: component) {
            guard let name = icalproperty_get_x_name(property), strcasecmp(name, "X-ALT-DESC") == 0,
                let value = icalproperty_get_value(property), let raw = icalvalue_as_ical_string(value)
            else { continue }
            let text = ICalText.unescaped(String(cString: raw))
            return text.isEmpty ? nil : text
        }
        return nil
    }

    /// `text` as HTML text: `&`, `<` and `>` escaped, each line feed replaced by `lineBreak` when given.
    static func escapeHTML(_ text: String, lineBreak: StaticString? = nil) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count + 16)
        func append(_ replacement: StaticString) {
            output.append(
                contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): append("&amp;")
            case UInt8(ascii: "<"): append("&lt;")
            case UInt8(ascii: ">"): append("&gt;")
            case UInt8(ascii: "\n"):
                if let lineBreak { append(lineBreak) } else { output.append(byte) }
            default: output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `Name <address>` of an ORGANIZER or ATTENDEE.
    static func person(_ property: OpaquePointer) -> String {
        let address = mailAddress(property)
        guard let parameter = icalproperty_get_first_parameter(property, ICAL_CN_PARAMETER),
            let name = icalparameter_get_cn(parameter).map({ String(cString: $0) }), !name.isEmpty
        else { return address }
        return address.isEmpty ? name : "\(name) <\(address)>"
    }

    /// The address of an ORGANIZER or ATTENDEE without its `mailto:`.
    static func mailAddress(_ property: OpaquePointer) -> String {
        let value = icalproperty_get_value_as_string(property).map { String(cString: $0) } ?? ""
        guard value.utf8.count >= 7, ICalText.equalsIgnoringASCIICase(String(value.prefix(7)), "mailto:") else {
            return value
        }
        return String(value.dropFirst(7))
    }

    /// ATTENDEEs as Graph attendees (type from CUTYPE and ROLE), for ``ImportSettings/notifiesAttendees``.
    func attendees(_ component: OpaquePointer) -> [GraphAttendee] {
        Self.properties(ICAL_ATTENDEE_PROPERTY, in: component).compactMap { property in
            let address = Self.mailAddress(property)
            guard !address.isEmpty else { return nil }
            let name = icalproperty_get_first_parameter(property, ICAL_CN_PARAMETER)
                .flatMap { icalparameter_get_cn($0) }.map { String(cString: $0) }
            let cutype = icalproperty_get_first_parameter(property, ICAL_CUTYPE_PARAMETER).map {
                icalparameter_get_cutype($0)
            }
            let role = icalproperty_get_first_parameter(property, ICAL_ROLE_PARAMETER).map {
                icalparameter_get_role($0)
            }
            let type: String
            if cutype == ICAL_CUTYPE_RESOURCE || cutype == ICAL_CUTYPE_ROOM {
                type = "resource"
            } else if role == ICAL_ROLE_OPTPARTICIPANT || role == ICAL_ROLE_NONPARTICIPANT {
                type = "optional"
            } else {
                type = "required"
            }
            return GraphAttendee(type: type, emailAddress: GraphEmailAddress(name: name, address: address))
        }
    }
}
