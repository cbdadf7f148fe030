import Foundation

/// The system's IANA time zone database (Debian's `tzdata`), as far as graph-ics needs it: which names
/// exist, and which are links to which.
///
/// Names are normalised through tzdata's links, so that CLDR's `Asia/Calcutta` and `Europe/Kiev` come out
/// as `Asia/Kolkata` and `Europe/Kyiv`, while names that `zone.tab` lists as a country's zone (such as
/// `Europe/Amsterdam`) are kept as they are. Immutable after loading; safe to share.
public struct TZData: Sendable {
    /// The database libical reads its built-in zones from. libical 3.0 looks only in fixed system folders
    /// (it ignores `TZDIR`), Debian's being `/usr/share/zoneinfo`; graph-ics reads names, links and TZif
    /// files from the same folder, so that its zones and libical's never come from two databases.
    public static let systemDirectory = "/usr/share/zoneinfo"

    /// The system's database (``systemDirectory``).
    public static let system = TZData(directory: systemDirectory)

    public let directory: String
    /// The release of the database, from the first line of `tzdata.zi` (`# version 2026f`); nil when the
    /// file is missing or has no such line.
    public let version: String?
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
        var version: String?
        // tzdata.zi is about 110 KB: split it as bytes, not as Characters.
        for (index, fields) in Self.lines(of: directory + "/tzdata.zi", separator: 0x20).enumerated() {
            if index == 0, fields.count >= 3, fields[0] == "#", fields[1] == "version" {
                version = fields[2]
            } else if fields.count >= 3, fields[0] == "L" {
                links[fields[2]] = fields[1]
            } else if fields.count >= 2, fields[0] == "Z" {
                zones.insert(fields[1])
            }
        }
        var countryZones = Set<String>()
        for fields in Self.lines(of: directory + "/zone.tab", separator: 0x09)
        where fields.count >= 3 && !fields[0].hasPrefix("#") {
            countryZones.insert(fields[2])
        }
        self.links = links
        self.zones = zones
        self.version = version
        self.countryZones = countryZones
        var lowercased: [String: String] = [:]
        for name in zones { lowercased[name.lowercased()] = name }
        for name in links.keys { lowercased[name.lowercased()] = name }
        self.byLowercasedName = lowercased
    }

    /// The first three fields of each line of a text file, split at `separator` bytes (for `Z` lines of
    /// tzdata.zi only the first fields matter). A missing file has no lines.
    static func lines(of path: String, separator: UInt8) -> [[String]] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        var result: [[String]] = []
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var lineStart = 0
            while lineStart < bytes.count {
                var lineEnd = lineStart
                while lineEnd < bytes.count, bytes[lineEnd] != 0x0A { lineEnd += 1 }
                var fields: [String] = []
                var fieldStart = lineStart
                var position = lineStart
                while position <= lineEnd, fields.count < 3 {
                    if position == lineEnd || bytes[position] == separator {
                        if position > fieldStart {
                            fields.append(
                                String(
                                    decoding: UnsafeBufferPointer(rebasing: bytes[fieldStart..<position]), as: UTF8.self
                                ))
                        }
                        fieldStart = position + 1
                    }
                    position += 1
                }
                result.append(fields)
                lineStart = lineEnd + 1
            }
        }
        return result
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

    /// A relative path made of zone-name characters only, so it cannot leave the database directory.
    static func isSafeName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix("/") && !name.contains("..")
            && name.unicodeScalars.allSatisfy {
                ($0.value >= 0x30 && $0.value <= 0x39) || ($0.value >= 0x41 && $0.value <= 0x5A)
                    || ($0.value >= 0x61 && $0.value <= 0x7A) || "/_-+".unicodeScalars.contains($0)
            }
    }
}
