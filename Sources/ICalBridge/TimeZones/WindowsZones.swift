/// The CLDR table between Windows time zone names (what Exchange and Graph use) and IANA names.
///
/// The data is the whole of CLDR's `windowsZones.xml`, generated into `WindowsZones+CLDR.swift` by
/// `scripts/generate-windows-zones`. Territory `001` gives each Windows zone's default IANA zone; every
/// IANA id of every row is indexed for the reverse direction, under its own name and its tzdata-canonical
/// name. Lookups of Windows names ignore case.
public enum WindowsZones {
    struct Table: Sendable {
        /// Lower-cased Windows name → (Windows name, canonical IANA name of territory 001).
        var toIANA: [String: (windows: String, iana: String)] = [:]
        /// IANA name (as in CLDR and canonical) → Windows name.
        var toWindows: [String: String] = [:]
        /// Lower-cased display name → Windows name.
        var byDisplayName: [String: String] = [:]
        /// Windows name → display name.
        var displayNames: [String: String] = [:]
        /// Windows names in CLDR order.
        var windowsNames: [String] = []
    }

    static let table: Table = {
        var table = Table()
        let tz = TZData.system
        for fields in fields(of: cldrRows) {
            guard fields.count == 3 else { continue }
            let windows = fields[0]
            let territory = fields[1]
            let ianaNames = fields[2].utf8.split(separator: 0x20).compactMap { String($0) }
            if territory == "001", let first = ianaNames.first {
                table.toIANA[windows.lowercased()] = (windows, tz.canonical(first))
                table.windowsNames.append(windows)
            }
            for name in ianaNames {
                // The first row that names a zone wins, and 001 rows come first in CLDR's file.
                if table.toWindows[name] == nil { table.toWindows[name] = windows }
                let canonical = tz.canonical(name)
                if table.toWindows[canonical] == nil { table.toWindows[canonical] = windows }
            }
        }
        // Territory 001 is the authoritative reverse entry for its own default zone.
        for (_, entry) in table.toIANA { table.toWindows[entry.iana] = entry.windows }
        for fields in fields(of: cldrDisplayNames) {
            guard fields.count == 2 else { continue }
            let windows = fields[0]
            let display = fields[1]
            table.displayNames[windows] = display
            table.byDisplayName[display.lowercased()] = windows
        }
        return table
    }()

    /// The tab-separated fields of each line of the generated text, trimmed (split as UTF-8 bytes: this
    /// runs at start-up).
    static func fields(of text: String) -> [[String]] {
        text.utf8.split(separator: 0x0A).map { line in
            line.split(separator: 0x09, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self).trimmingSpaces()
            }
        }
    }

    /// The IANA zone (tzdata-canonical) of a Windows zone name, or nil when CLDR does not know the name.
    public static func iana(forWindows name: String) -> String? {
        table.toIANA[name.lowercased()]?.iana
    }

    /// CLDR's spelling of a Windows zone name matched without regard to case.
    public static func windowsName(matching name: String) -> String? {
        table.toIANA[name.lowercased()]?.windows
    }

    /// The Windows zone of an IANA name (any spelling CLDR or tzdata links use), or nil.
    public static func windows(forIANA name: String) -> String? {
        if let windows = table.toWindows[name] { return windows }
        return table.toWindows[TZData.system.canonical(name)]
    }

    /// The Windows zone whose Outlook display name is `name` (`(UTC+01:00) Amsterdam, Berlin, …`).
    public static func windows(forDisplayName name: String) -> String? {
        table.byDisplayName[name.trimmingSpaces().lowercased()]
    }

    /// Outlook's display name of a Windows zone.
    public static func displayName(forWindows name: String) -> String? {
        windowsName(matching: name).flatMap { table.displayNames[$0] }
    }

    /// Every Windows zone name of the table, in CLDR order.
    public static var allWindowsNames: [String] { table.windowsNames }
}
