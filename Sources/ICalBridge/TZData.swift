import Foundation

/// The system's IANA time zone database (Debian's `tzdata`), as far as graph-ics needs it: which names
/// exist, and which are links to which.
///
/// Names are normalised through tzdata's links, so that CLDR's `Asia/Calcutta` and `Europe/Kiev` come out
/// as `Asia/Kolkata` and `Europe/Kyiv`, while names that `zone.tab` lists as a country's zone (such as
/// `Europe/Amsterdam`) are kept as they are. Immutable after loading; safe to share.
public struct TZData: Sendable {
    /// The database under `$TZDIR`, or `/usr/share/zoneinfo`.
    public static let system = TZData(
        directory: ProcessInfo.processInfo.environment["TZDIR"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "/usr/share/zoneinfo"
    )

    public let directory: String
    /// Link name → target, from `tzdata.zi` (`L TARGET NAME` lines).
    let links: [String: String]
    /// Names of zones (not links) from `tzdata.zi` (`Z NAME …` lines).
    let zones: Set<String>
    /// Names `zone.tab` lists as the zone of a country or region.
    let countryZones: Set<String>
    /// Lower-cased name → name, for users who type `europe/berlin`.
    let byLowercasedName: [String: String]

    public init(directory: String) {
        self.directory = directory
        var links: [String: String] = [:]
        var zones = Set<String>()
        if let text = try? String(contentsOfFile: directory + "/tzdata.zi", encoding: .utf8) {
            for line in text.split(separator: "\n") {
                if line.hasPrefix("L ") {
                    let fields = line.split(separator: " ")
                    if fields.count >= 3 { links[String(fields[2])] = String(fields[1]) }
                } else if line.hasPrefix("Z ") {
                    let fields = line.split(separator: " ", maxSplits: 2)
                    if fields.count >= 2 { zones.insert(String(fields[1])) }
                }
            }
        }
        var countryZones = Set<String>()
        if let text = try? String(contentsOfFile: directory + "/zone.tab", encoding: .utf8) {
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                let fields = line.split(separator: "\t")
                if fields.count >= 3 { countryZones.insert(String(fields[2])) }
            }
        }
        self.links = links
        self.zones = zones
        self.countryZones = countryZones
        var lowercased: [String: String] = [:]
        for name in zones { lowercased[name.lowercased()] = name }
        for name in links.keys { lowercased[name.lowercased()] = name }
        self.byLowercasedName = lowercased
    }

    /// Whether `name` is a zone or link of this database (exact spelling), or at least a zone file.
    public func contains(_ name: String) -> Bool {
        if zones.contains(name) || links[name] != nil { return true }
        return Self.isSafeName(name) && FileManager.default.fileExists(atPath: directory + "/" + name)
    }

    /// The database's spelling of `name`, matched without regard to case, or nil when unknown.
    public func knownName(_ name: String) -> String? {
        if contains(name) { return name }
        return byLowercasedName[name.lowercased()]
    }

    /// The preferred name for `name`: a link is followed to its zone unless `zone.tab` lists the link name
    /// itself as a country's zone. Unknown names come back unchanged.
    public func canonical(_ name: String) -> String {
        var current = name
        for _ in 0..<8 {
            if countryZones.contains(current) || zones.contains(current) { return current }
            if let target = links[current] {
                current = target
                continue
            }
            if Self.isSafeName(current),
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + current)
            {
                let base = (current as NSString).deletingLastPathComponent
                let joined = target.hasPrefix("/") ? target : (base.isEmpty ? target : base + "/" + target)
                current = (joined as NSString).standardizingPath.replacing(directory + "/", with: "")
                continue
            }
            return current
        }
        return current
    }

    /// Every zone of the database (links excluded), sorted.
    public var zoneNames: [String] { zones.sorted() }

    /// A relative path made of zone-name characters only, so it cannot leave the database directory.
    static func isSafeName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix("/") && !name.contains("..")
            && name.unicodeScalars.allSatisfy {
                ($0.value >= 0x30 && $0.value <= 0x39) || ($0.value >= 0x41 && $0.value <= 0x5A)
                    || ($0.value >= 0x61 && $0.value <= 0x7A) || "/_-+".unicodeScalars.contains($0)
            }
    }
}
