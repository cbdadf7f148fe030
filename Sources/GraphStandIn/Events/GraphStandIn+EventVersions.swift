// Event versions: the change key (and the `@odata.etag` made from it) that every write replaces, a
// series master's version moving when one of its instances changes or goes, and `If-Match` on writes.
import Foundation

extension GraphStandIn {
    /// Graph's 412 when `If-Match` names another version than the event's `@odata.etag`; nil when the
    /// header is absent, `*`, or names the current version (weak `W/"…"` or quoted `"…"`).
    func staleIfMatch(_ event: StoredEvent, _ call: GraphCall, _ context: RequestContext)
        -> LoopbackHTTPServer.Response?
    {
        guard let header = call.header("If-Match") else { return nil }
        let current = "\"" + (event.fields["changeKey"] as? String ?? "") + "\""
        let tags = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let matches = tags.contains { tag in
            tag == "*" || tag == current || (tag.hasPrefix("W/") && tag.dropFirst(2) == current)
        }
        if matches { return nil }
        return graphError(
            412, "ErrorIrresolvableConflict",
            "The send or update operation could not be performed because the change key passed in the request does"
                + " not match the current change key for the item.", context)
    }

    /// Gives an event a new version: a new change key and `lastModifiedDateTime`.
    static func newVersion(of event: inout StoredEvent, now: Date) {
        event.fields["lastModifiedDateTime"] = utcStamp(now)
        event.fields["changeKey"] = randomToken(length: 22)
    }

    /// A new version for the series master of `instance` (Exchange keeps a series' exceptions and deleted
    /// occurrences in its master), when it has one.
    static func touchMaster(of instance: StoredEvent, in state: inout State, now: Date) {
        guard let masterID = instance.seriesMasterID, var master = state.events[masterID] else { return }
        newVersion(of: &master, now: now)
        state.events[masterID] = master
    }
}
