import Dispatch
import Foundation

/// Settings of one export.
public struct ExportOptions: Sendable {
    /// The mailbox zone (`--tz`): where events whose original zone Graph does not know are shown. UTC
    /// when nil.
    public var fallbackZone: ResolvedZone?
    /// The DTSTAMP of every VEVENT (seconds since 1970, UTC): the time the calendar was made.
    public var timestamp: Int64
    /// The file named in diagnostics.
    public var file: String

    public init(fallbackZone: ResolvedZone? = nil, timestamp: Int64? = nil, file: String = "<input>") {
        self.fallbackZone = fallbackZone
        self.timestamp = timestamp ?? Int64(Date().timeIntervalSince1970)
        self.file = file
    }
}
