import Foundation
import GraphICS
import GraphICSMirror
import ICalBridge

/// One item as a round shows it: a single event, or the occurrences and exceptions of one series
/// (Graph's delta and calendarView return occurrences, never masters), keyed by the Graph id the state
/// records.
public struct PullItemSource: Sendable {
    /// The event's id, or the series master's.
    public var graphID: String
    public var isSeries: Bool
    /// The entries (one for a single event; the occurrences and exceptions seen for a series), as JSON.
    public var events: [Data]
    /// The change key of a single event (a series' is its master's, read with the master).
    public var changeKey: String?
    /// A series' occurrences and exceptions seen in the round, by id, with their change keys.
    public var occurrenceKeys: [String: String] = [:]
    public init(
        graphID: String, isSeries: Bool, events: [Data], changeKey: String? = nil,
        occurrenceKeys: [String: String] = [:], unread: Bool = false
    ) {
        self.graphID = graphID
        self.isSeries = isSeries
        self.events = events
        self.changeKey = changeKey
        self.occurrenceKeys = occurrenceKeys
        self.unread = unread
    }

    /// Not in the round: an item whose Graph version a full round kept back, read again by id (single
    /// event or series master).
    var unread = false
}

/// What one entry says about the item it belongs to.
public struct DeltaEntryShape {
    public var seriesMasterID: String?
    /// A single event the import made of an occurrence Graph refused to move past a neighbour's day
    /// (``ImportIdentity/movedOccurrence(of:)``), in ``seriesMasterID``'s item: Graph's instances of the
    /// series do not list it.
    public var isMovedOccurrence = false

    public init(_ raw: Data) {
        let object = (try? JSONSerialization.jsonObject(with: raw)) as? [String: Any]
        let type = object?["type"] as? String
        let master = object?["seriesMasterId"] as? String
        seriesMasterID = (type == "occurrence" || type == "exception") ? master : nil
        if seriesMasterID == nil {
            // An occurrence the import moved past a neighbour's day, an event of its own in Graph: part of its
            // series' item, which the export writes it in as an override.
            seriesMasterID =
                ImportIdentity.movedOccurrence(transactionID: object?["transactionId"] as? String, type: type)?
                .seriesID
            isMovedOccurrence = seriesMasterID != nil
        }
    }

    /// Groups entries into items in the order their first entry came.
    public static func group(_ events: [MirrorEvent]) -> [PullItemSource] {
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
            if shape.seriesMasterID != nil {
                items[key]?.occurrenceKeys[event.id] = event.changeKey ?? ""
            }
        }
        return order.compactMap { items[$0] }
    }
}
