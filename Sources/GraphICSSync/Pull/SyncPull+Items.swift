import Foundation
import GraphICS
import GraphICSMirror
import ICalBridge

/// One item's file as Graph has it now, and what the state records for it.
struct PullUpdate: Sendable {
    var fileName: String
    var uid: String
    var graphID: String
    var changeKey: String?
    var contents: Data
    var sha256: Data
    /// A series' occurrences and exceptions in the window (empty for a single event).
    var occurrenceIDs: [String]
    /// Their change keys, by id.
    var occurrenceChangeKeys: [String: String] = [:]
    /// Graph confirmed the event outside the window (recorded so that rounds over the window leave it be).
    var outsideWindow = false
}

/// What preparing one item found.
enum PreparedItem {
    case update(PullUpdate)
    /// Graph answered 404 for the event or the series' master: deleted in Outlook.
    case gone
    /// The series' master (its JSON) is there, but none of its occurrences is in the window any more.
    case leftWindow(master: Data)
    /// It could not be converted (the diagnostics say why); its file is left as it is.
    case skipped
}

extension SyncPull {
    /// Encodes `source` as its file: a single event from its entry; a series from its master and its
    /// occurrences (those of the round, or with `fetchOccurrences` all of the window's, read again); an
    /// unread item from `GET events/{id}` first.
    ///
    /// An item the state records (`record`, found by its Graph id) keeps its file name and UID, whatever
    /// `iCalUId` Graph gave it (one of its own, for an event the push created); a new item is named after
    /// its UID. A series' master comes from `masters` (read ahead, nil when Graph no longer has it), else is
    /// read now. The events of their own holding occurrences moved past a neighbour's day come from `moved`,
    /// the round's one reading of the mirror.
    func prepare(
        _ source: PullItemSource, record: SyncItemRecord?, window: SyncWindow, fetchOccurrences: Bool,
        masters: [String: Data?] = [:], moved: MovedOccurrenceIndex, diagnostics: inout [Diagnostic]
    ) throws -> PreparedItem {
        if source.unread {
            return try prepareUnread(
                source.graphID, record: record, window: window, moved: moved, diagnostics: &diagnostics)
        }
        let encoder = PullItemEncoder(client: client, options: options, window: window)
        guard source.isSeries else {
            guard
                let encoded = try encoder.encode(
                    source.events, master: nil, uid: record?.uid, diagnostics: &diagnostics),
                isOneItem(encoded, graphID: source.graphID, subject: nil, &diagnostics)
            else { return .skipped }
            return .update(update(encoded, record: record, graphID: source.graphID, changeKey: source.changeKey))
        }
        let read =
            try masters[source.graphID] ?? CalendarExporter(client: client).fetchMasters([source.graphID]).first?.value
        guard let master = read ?? nil else { return .gone }
        let events =
            fetchOccurrences
            ? try occurrences(of: source.graphID, in: window)
                + movedOccurrences(of: source, in: window, from: moved)
            : source.events
        // Every occurrence moved out of the window (or the pattern shortened before it): the series left the
        // window as a single event moved out of it does, and its file stays (see `keep`).
        guard !events.isEmpty else { return .leftWindow(master: master) }
        let fields = Self.fields(master)
        guard
            let encoded = try encoder.encode(
                events, master: (source.graphID, master), uid: record?.uid, diagnostics: &diagnostics),
            isOneItem(encoded, graphID: source.graphID, subject: fields["subject"] as? String, &diagnostics)
        else { return .skipped }
        var item = update(encoded, record: record, graphID: source.graphID, changeKey: fields["changeKey"] as? String)
        for event in events {
            let fields = Self.fields(event)
            guard let id = fields["id"] as? String else { continue }
            item.occurrenceIDs.append(id)
            item.occurrenceChangeKeys[id] = fields["changeKey"] as? String
        }
        return .update(item)
    }

    /// Reads an item that is not in the round by its id (a single event or a series master) and encodes it;
    /// `.gone` when Graph no longer has it.
    private func prepareUnread(
        _ id: String, record: SyncItemRecord?, window: SyncWindow, moved: MovedOccurrenceIndex,
        diagnostics: inout [Diagnostic]
    ) throws -> PreparedItem {
        let json: Data
        do {
            json = try client.event(id: id)
        } catch let error as GraphError where error.status == 404 {
            return .gone
        }
        let fields = Self.fields(json)
        let isSeries = fields["type"] as? String == "seriesMaster"
        let source = PullItemSource(
            graphID: id, isSeries: isSeries, events: isSeries ? [] : [json], changeKey: fields["changeKey"] as? String)
        return try prepare(
            source, record: record, window: window, fetchOccurrences: true, masters: isSeries ? [id: json] : [:],
            moved: moved, diagnostics: &diagnostics)
    }

    /// Whether `encoded` is one vdir item: one UID, and one VEVENT without RECURRENCE-ID. A series the export
    /// could only write as separate instances (each with its own UID) is not: it is refused with an error
    /// naming the series, and nothing is written for it.
    private func isOneItem(
        _ encoded: PullItemEncoder.Encoded, graphID: String, subject: String?, _ diagnostics: inout [Diagnostic]
    ) -> Bool {
        guard encoded.uids.count > 1 || encoded.masterCount > 1 else { return true }
        diagnostics.append(
            Diagnostic(
                .error,
                "the export writes this series as \(encoded.masterCount) separate events with "
                    + "\(encoded.uids.count) UIDs (\(encoded.uids.prefix(3).joined(separator: ", "))"
                    + "\(encoded.uids.count > 3 ? ", …" : "")), which one item file cannot hold; not pulled",
                file: folder.path, eventID: graphID, subject: subject))
        return false
    }

    /// The update writing `encoded` under its record's file name and UID, else under its own UID's.
    private func update(
        _ encoded: PullItemEncoder.Encoded, record: SyncItemRecord?, graphID: String, changeKey: String?
    )
        -> PullUpdate
    {
        PullUpdate(
            fileName: record?.fileName ?? VdirFileName.forUID(encoded.uid), uid: record?.uid ?? encoded.uid,
            graphID: graphID, changeKey: changeKey, contents: encoded.contents, sha256: SHA256.hash(encoded.contents),
            occurrenceIDs: [])
    }

    /// The occurrences and exceptions of a series in the window (`GET events/{id}/instances`), each as JSON.
    private func occurrences(of masterID: String, in window: SyncWindow) throws -> [Data] {
        var events: [Data] = []
        try client.instances(seriesMasterID: masterID, start: window.startDate, end: window.endDate) { page in
            let object = (try? JSONSerialization.jsonObject(with: page)) as? [String: Any]
            for entry in object?["value"] as? [[String: Any]] ?? [] {
                events.append(try JSONSerialization.data(withJSONObject: entry))
            }
        }
        return events
    }

    /// The single events the import (or the push) made of occurrences of series `source` that Graph refused
    /// to move past a neighbour's day, which `GET events/{id}/instances` does not list: those of the round,
    /// and those the mirror holds over `window` (from `moved`, read from the mirror once, not from Graph).
    private func movedOccurrences(of source: PullItemSource, in window: SyncWindow, from moved: MovedOccurrenceIndex)
        throws -> [Data]
    {
        var found: [Data] = []
        var ids = Set<String>()
        for raw in source.events where DeltaEntryShape(raw).isMovedOccurrence {
            if let id = Self.fields(raw)["id"] as? String, ids.insert(id).inserted { found.append(raw) }
        }
        for stored in try moved.events(ofSeries: source.graphID, in: window) where !ids.contains(stored.id) {
            found.append(stored.raw)
        }
        return found
    }

    static func fields(_ json: Data) -> [String: Any] {
        ((try? JSONSerialization.jsonObject(with: json)) as? [String: Any]) ?? [:]
    }
}
