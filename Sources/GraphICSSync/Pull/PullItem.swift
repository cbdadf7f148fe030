import Foundation
import GraphICS

/// One item as a delta round shows it: a single event, or the occurrences and exceptions of one series
/// (Graph's delta returns occurrences, never masters), keyed by the Graph id the state records.
struct PullItemSource {
    /// The event's id, or the series master's.
    var graphID: String
    var isSeries: Bool
    /// The delta entries (one for a single event; the occurrences and exceptions seen for a series), as JSON.
    var events: [Data]
    /// The change key of a single event (a series' is its master's, read with the master).
    var changeKey: String?
}

/// What one delta entry says about the item it belongs to.
struct DeltaEntryShape {
    var seriesMasterID: String?

    init(_ raw: Data) {
        let object = (try? JSONSerialization.jsonObject(with: raw)) as? [String: Any]
        let type = object?["type"] as? String
        let master = object?["seriesMasterId"] as? String
        seriesMasterID = (type == "occurrence" || type == "exception") ? master : nil
    }

    /// Groups delta entries into items in the order their first entry came: a single event each, one item
    /// per series.
    static func group(_ events: [DeltaEvent]) -> [PullItemSource] {
        var order: [String] = []
        var items: [String: PullItemSource] = [:]
        for event in events {
            let shape = DeltaEntryShape(event.raw)
            let key = shape.seriesMasterID ?? event.id
            if items[key] == nil {
                order.append(key)
                items[key] = PullItemSource(
                    graphID: key, isSeries: shape.seriesMasterID != nil, events: [],
                    changeKey: shape.seriesMasterID == nil ? event.changeKey : nil)
            }
            items[key]?.events.append(event.raw)
        }
        return order.compactMap { items[$0] }
    }
}
