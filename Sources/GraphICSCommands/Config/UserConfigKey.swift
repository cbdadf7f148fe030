import ICalBridge

/// A key of the config file: its `section.key` name, what it sets, and which values it takes.
struct UserConfigKey: Sendable {
    let name: String
    /// The values it takes, as `config list --keys` and docs/configuration.md show them.
    let values: String
    let help: String
    /// The problem with a value, nil when the key takes it.
    let problem: @Sendable (String) -> String?

    /// Every key graph-ics reads, in the order `graph-ics config list --keys` shows them.
    static let all: [UserConfigKey] = [
        UserConfigKey(
            name: "defaults.account", values: "NAME|UPN",
            help: "The saved sign-in to use without --account (see 'graph-ics accounts').", problem: { _ in nil }),
        UserConfigKey(
            name: "defaults.calendar", values: "NAME|ID",
            help: "The calendar export, agenda, add and import use without --calendar.", problem: { _ in nil }),
        UserConfigKey(
            name: "defaults.zone", values: "ZONE",
            help: "The time zone used without --tz, instead of the mailbox's own.",
            problem: { value in
                guard case .resolved = ZoneResolver.resolve(value) else {
                    return "'\(value)' is not a time zone (use an IANA name such as Europe/Berlin)"
                }
                return nil
            }),
        choice(
            "agenda.format", ["text", "tsv", "json"], "How agenda prints without --tsv, --json or --format",
            orTemplate: true),
        choice("display.time", ["locale", "24h", "12h"], "Times as 14:30 or 2:30 PM; locale: as LC_TIME says"),
        choice("display.color", ["auto", "always", "never"], "Colour on a terminal (auto: unless NO_COLOR is set)"),
    ]

    /// The sections of the file: those of the keys, and `[colors]`.
    static let sections = ["defaults", "agenda", "display", "colors"]

    /// The colour names `[colors]` takes (or `#RRGGBB`).
    static let colors = ["default", "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]

    /// The key called `name` (case-insensitive); `colors.NAME` (a calendar or category) is a key of its own.
    static func named(_ name: String) -> UserConfigKey? {
        let name = name.lowercased()
        if let key = all.first(where: { $0.name == name }) { return key }
        guard name.hasPrefix("colors."), name.count > "colors.".count else { return nil }
        return UserConfigKey(
            name: name, values: colors.joined(separator: "|") + "|#RRGGBB",
            help: "The colour of the calendar or category named after the dot.",
            problem: { value in
                let isHex =
                    value.count == 7 && value.hasPrefix("#") && value.dropFirst().allSatisfy(\.isHexDigit)
                return colors.contains(value.lowercased()) || isHex
                    ? nil : "'\(value)' is not a colour (use \(colors.joined(separator: ", ")) or #RRGGBB)"
            })
    }

    /// What is wrong with setting `name` to `value`: an unknown key, no value, or a value it does not take.
    static func problem(name: String, value: String) -> String? {
        guard let key = named(name) else { return unknown(name) }
        guard !value.isEmpty else { return "'\(key.name)' needs a value (\(key.values))" }
        return key.problem(value).map { "\(key.name): \($0)" }
    }

    /// The message for a key graph-ics does not know, with the nearest known one.
    static func unknown(_ name: String) -> String {
        let names = all.map(\.name)
        let hint = Suggestion.hint(for: name.lowercased(), among: names)
        return "unknown key '\(name)'"
            + (hint.isEmpty ? " (graph-ics knows \(names.joined(separator: ", ")) and colors.NAME)" : hint)
    }

    private static func choice(
        _ name: String, _ choices: [String], _ help: String, orTemplate: Bool = false
    ) -> UserConfigKey {
        let values = choices.joined(separator: "|") + (orTemplate ? "|TEMPLATE" : "")
        return UserConfigKey(
            name: name, values: values, help: help + ".",
            problem: { value in
                if choices.contains(value.lowercased()) || (orTemplate && value.contains("{")) { return nil }
                let template = orTemplate ? ", or a template such as '{start:%H:%M} {subject}'" : ""
                return "'\(value)' is not one of \(choices.joined(separator: ", "))\(template)"
            })
    }
}

/// The defaults the config file gives, as the commands read them.
extension UserConfig {
    /// `defaults.account`.
    var account: String? { self["defaults.account"] }
    /// `defaults.calendar`.
    var calendar: String? { self["defaults.calendar"] }
    /// `defaults.zone`, resolved (the value was checked when the file was read).
    var zone: ResolvedZone? {
        guard let name = self["defaults.zone"], case .resolved(let zone, _) = ZoneResolver.resolve(name) else {
            return nil
        }
        return zone
    }

    /// `display.time`: whether times are shown on a 12-hour clock; `locale` (the default) asks LC_ALL,
    /// LC_TIME, then LANG: the locales of the US, Canada, Australia, India, the Philippines and a few
    /// others use one.
    func usesTwelveHourClock(environment: [String: String]) -> Bool {
        switch self["display.time"]?.lowercased() {
        case "12h": return true
        case "24h": return false
        default:
            let locale = ["LC_ALL", "LC_TIME", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
            guard let locale, let region = locale.split(separator: ".").first?.split(separator: "_").last else {
                return false
            }
            return ["US", "CA", "AU", "NZ", "IN", "PH", "EG", "SA", "PK"].contains(String(region))
        }
    }
}
