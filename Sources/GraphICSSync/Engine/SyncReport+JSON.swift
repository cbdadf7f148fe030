import Foundation
import ICalBridge

extension SyncReport {
    /// The report as one JSON document (`graph-ics sync --json`), keys sorted:
    ///
    /// `dryRun`, `round` (`changes`, `first`, `resync`, `reanchored`, or null), `window` (`start`, `end`,
    /// ISO 8601 UTC), `items` (each `file`, `uid`, `subject`, `outcome`: `pulled`, `pushed`, `recorded`, `held`,
    /// `conflict`, `failed`, `refused`, and by outcome `change`, `attendees`, `resolution`, `kept`, `reason`,
    /// `requestId`, `note` (a pushed item: what was done besides, or null); `outsideWindow` for an event Outlook
    /// still has outside the window, reported once), `counts`,
    /// `confirmations` (events gone from the window that Graph was asked about), `unsentLocalChanges` (`--pull-only`), `diagnostics` (their lines), `refusal` (`side`, `deletions`, `items`,
    /// `message`, or null), `summary`.
    public func jsonData() throws -> Data {
        let document: [String: Any] = [
            "dryRun": isDryRun,
            "round": round?.rawValue ?? NSNull(),
            "window": ["start": Self.timestamp(window.start), "end": Self.timestamp(window.end)],
            "items": items.map(\.jsonObject),
            "counts": counts,
            "unsentLocalChanges": unsentLocalChanges,
            "confirmations": confirmations,
            "heldBefore": heldBefore,
            "diagnostics": diagnostics.map(\.description),
            "refusal": refusal.map { refusal -> Any in
                [
                    "side": refusal.side == .folder ? "folder" : "outlook", "deletions": refusal.deletions,
                    "items": refusal.items, "message": refusal.description,
                ] as [String: Any]
            } ?? NSNull(),
            "summary": summary,
        ]
        return try JSONOutput.data(JSONValue(jsonObject: document))
    }

    /// Seconds since 1970 as `2026-12-01T00:00:00Z`.
    static func timestamp(_ seconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}

extension SyncReport.Item {
    var jsonObject: [String: Any] {
        var object: [String: Any] = [
            "file": fileName, "uid": uid ?? NSNull(), "subject": subject ?? NSNull(),
        ]
        switch outcome {
        case .pulled(let change):
            object["outcome"] = "pulled"
            object["change"] = change.rawValue
        case .pushed(let change):
            object["outcome"] = "pushed"
            object["change"] = change.rawValue
            object["note"] = note ?? NSNull()
        case .recorded:
            object["outcome"] = "recorded"
        case .held(let attendees):
            object["outcome"] = "held"
            object["attendees"] = attendees
        case .conflict(let resolution, let kept, let reason, let mails):
            object["mailsAttendees"] = mails
            object["outcome"] = "conflict"
            object["resolution"] = resolution.rawValue
            object["kept"] = kept ?? NSNull()
            object["reason"] = reason ?? NSNull()
        case .failed(let reason, let requestID):
            object["outcome"] = "failed"
            object["reason"] = reason
            object["requestId"] = requestID ?? NSNull()
        case .refused(let reason):
            object["outcome"] = "refused"
            object["reason"] = reason
        case .outsideWindow:
            object["outcome"] = "outsideWindow"
        }
        return object
    }
}
