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
