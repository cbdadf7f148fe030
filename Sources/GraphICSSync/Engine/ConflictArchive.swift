import Foundation
import GraphICS

/// Where the losing side of a settled conflict is kept: `<state directory>/conflicts/`, one file per
/// kept version, `<item file name without .ics>.<UTC yyyyMMdd'T'HHmmss>.<graph|local>.ics`.
///
/// Never inside the synced folder (khal and vdirsyncer would read the copy as a second item with the same
/// UID). Files are written atomically (``VdirFolder``'s writes: a temporary, fsync, rename, fsync of the
/// folder) and never replaced: a second copy of one item in the same second gets `-2`, `-3`, … before
/// `.ics`.
public struct ConflictArchive: Sendable {
    /// Which version a kept file holds.
    public enum Side: String, Sendable, Equatable {
        /// Outlook's version (the local file won).
        case graph
        /// The local file's text (Outlook's version won).
        case local
    }

    /// The `conflicts` folder.
    public let directory: String
    /// The time written into the names (tests set it).
    public var now: @Sendable () -> Date = { Date() }

    /// The archive in the state directory `stateDirectory`.
    public init(stateDirectory: String) {
        directory = (stateDirectory as NSString).appendingPathComponent("conflicts")
    }

    /// Keeps `contents` (a version of the item `fileName`) and returns the kept file's path. Creates the
    /// folder (0700) when missing.
    @discardableResult
    public func keep(_ contents: Data, of fileName: String, side: Side) throws -> String {
        try StateDirectory.prepare(directory)
        let folder = try VdirFolder(path: directory)
        let base = Self.baseName(fileName) + "." + Self.stamp(now()) + "." + side.rawValue
        var name = base + ".ics"
        var copy = 1
        while try folder.entry(name) != nil {
            copy += 1
            name = "\(base)-\(copy).ics"
        }
        try folder.write(contents, to: name)
        return folder.filePath(name)
    }

    /// The item's file name without `.ics`.
    static func baseName(_ fileName: String) -> String {
        fileName.hasSuffix(".ics") ? String(fileName.dropLast(4)) : fileName
    }

    /// `yyyyMMdd'T'HHmmss` in UTC.
    static func stamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d%02d%02dT%02d%02d%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0,
            parts.minute ?? 0, parts.second ?? 0)
    }
}
