import ICalBridge

/// One event to import, with the file it came from (for the report). It is imported with the settings it was
/// planned for (``PlannedEvent/settings``).
public struct ImportItem: Sendable {
    /// The input file as the user named it (`<stdin>` for standard input).
    public var file: String
    public var event: PlannedEvent

    public init(file: String, event: PlannedEvent) {
        self.file = file
        self.event = event
    }
}
