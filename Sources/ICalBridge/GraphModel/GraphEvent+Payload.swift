import Foundation

extension GraphEvent {
    /// The event as compact JSON, exactly as graph-ics sends it to Graph: fields in the order of the model,
    /// `nil` fields left out, slashes unescaped (the same writer as ``ImportPlan/jsonData()``, without
    /// indentation).
    ///
    /// - Throws: ``ICalBridgeError`` (`.badInput`) for a value JSON cannot hold (a non-finite coordinate).
    public func jsonPayload() throws(ICalBridgeError) -> Data {
        do {
            return try JSONStreamEncoder().encode(self)
        } catch {
            throw ICalBridgeError(.badInput, "cannot write the Graph JSON of \"\(subject ?? "an event")\": \(error)")
        }
    }
}

extension ImportIdentity {
    /// The id of a second single-value extended property graph-ics writes on every event it imports: the
    /// version of the source it came from (see ``version(sequence:timestamp:)``), so that
    /// `import --on-duplicate update` can tell whether a file is newer than what it imported before.
    public static let versionPropertyID =
        "String {6a3d0f5e-2c41-4b8e-9d7a-3f1c5e8b2a90} Name graph-ics.source-version"

    /// The stored version of a source event: its SEQUENCE (0 when absent) and its DTSTAMP in UTC
    /// (`20261201T090000Z`, empty when absent), as `SEQUENCE;DTSTAMP` (`2;20261201T090000Z`).
    public static func version(sequence: Int?, timestamp: String?) -> String {
        "\(sequence ?? 0);" + (timestamp.map(normalisedStamp) ?? "")
    }

    /// Whether a source with `sequence` and `timestamp` is newer than the stored version `stored`: a higher
    /// SEQUENCE, or the same SEQUENCE and a later DTSTAMP (RFC 5546's rule for updates). An unreadable or
    /// missing stored version counts as older, so that an event imported before graph-ics kept versions
    /// can be updated.
    public static func isNewer(sequence: Int?, timestamp: String?, than stored: String?) -> Bool {
        guard let stored else { return true }
        let parts = stored.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, let storedSequence = Int(first) else { return true }
        let storedStamp = parts.count > 1 ? String(parts[1]) : ""
        let fileSequence = sequence ?? 0
        if fileSequence != storedSequence { return fileSequence > storedSequence }
        let fileStamp = timestamp.map(normalisedStamp) ?? ""
        return fileStamp > storedStamp
    }

    /// `20261201T090000Z` from the forms DTSTAMP takes (`20261201T090000Z`, lower-case, with spaces).
    private static func normalisedStamp(_ text: String) -> String {
        // Nearly always already in the form: digits, `T` and `Z`.
        if text.utf8.allSatisfy({ (0x30...0x39).contains($0) || $0 == UInt8(ascii: "T") || $0 == UInt8(ascii: "Z") }) {
            return text
        }
        return text.trimmingCharacters(in: .whitespaces).uppercased()
    }
}
