internal import CLibical

/// The properties of a VEVENT that become Graph fields of their own: show-as, sensitivity, importance,
/// categories, the reminder.
extension EventDecoder {
    func mapStatusProperties(_ event: inout GraphEvent, component: OpaquePointer) {
        if let busy = ICalComponent.value(of: "X-MICROSOFT-CDO-BUSYSTATUS", in: component)?.uppercased(),
            let showAs = GraphMappings.busyStatusToShowAs[busy]
        {
            event.showAs = showAs
        } else {
            let transparent =
                ICalComponent.value(of: "TRANSP", in: component).map({
                    ICalText.equalsIgnoringASCIICase($0, "TRANSPARENT")
                }) == true
            event.showAs = transparent ? "free" : "busy"
        }
        if let personal = ICalComponent.value(of: "X-GRAPH-ICS-SENSITIVITY", in: component), personal == "personal" {
            event.sensitivity = "personal"
        } else if let value = ICalComponent.value(of: "CLASS", in: component)?.uppercased() {
            event.sensitivity = GraphMappings.classToSensitivity[value] ?? "private"
        }
        switch ICalComponent.value(of: "X-MICROSOFT-CDO-IMPORTANCE", in: component) {
        case "0": event.importance = "low"
        case "1": event.importance = "normal"
        case "2": event.importance = "high"
        default:
            if let priority = ICalComponent.value(of: "PRIORITY", in: component).flatMap({ Int($0) }), priority > 0 {
                event.importance = GraphMappings.importance(fromPriority: priority)
            }
        }
        let categories = Self.properties(ICAL_CATEGORIES_PROPERTY, in: component).flatMap(Self.categoryValues)
        if !categories.isEmpty { event.categories = categories }
    }

    /// The value of one CATEGORIES property (libical's parser already splits a multi-valued CATEGORIES
    /// into one property per value and unescapes it).
    static func categoryValues(_ property: OpaquePointer) -> [String] {
        guard let value = icalproperty_get_categories(property) else { return [] }
        let text = String(cString: value).trimmingSpaces()
        return text.isEmpty ? [] : [text]
    }

    /// The first DISPLAY or AUDIO alarm that fires before (or at) the start becomes the reminder.
    func writeReminder(_ event: inout GraphEvent, component: OpaquePointer, context: inout Context) {
        event.isReminderOn = false
        var used = false
        for alarm in ICalComponent.children(of: component, ICAL_VALARM_COMPONENT) {
            let action = ICalComponent.value(of: "ACTION", in: alarm)?.uppercased() ?? ""
            guard let triggerProperty = icalcomponent_get_first_property(alarm, ICAL_TRIGGER_PROPERTY) else { continue }
            let trigger = icalproperty_get_trigger(triggerProperty)
            let related = icalproperty_get_first_parameter(triggerProperty, ICAL_RELATED_PARAMETER)
                .map { icalparameter_get_related($0) }
            let relative = icaltime_is_null_time(trigger.time) != 0 && related != ICAL_RELATED_END
            let seconds = Int(icaldurationtype_as_int(trigger.duration))
            if !used, action == "DISPLAY" || action == "AUDIO", relative, seconds <= 0 {
                event.isReminderOn = true
                event.reminderMinutesBeforeStart = -seconds / 60
                used = true
            } else {
                context.warning(
                    "an alarm (\(action.isEmpty ? "no ACTION" : action)) was not imported: Graph keeps one reminder before the start"
                )
            }
        }
    }
}
