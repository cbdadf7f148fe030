import Foundation
import ICalBridge

/// The access log of `serve`: one line per request, for standard error.
public enum AccessLog {
    /// `GET /…/work.ics 200 1834 bytes 0.3 ms 127.0.0.1:50412`: method, path with the segments before the
    /// last (a feed's secret, or a guess at one) shown as `…`, status, body bytes sent, time to answer, client.
    public static func line(
        _ request: HTTPServerRequest, _ response: HTTPServerResponse, milliseconds: Double
    ) -> String {
        let bytes = request.method == "HEAD" || response.status == 304 ? 0 : response.body.count
        let method = PrintableText.printable(String(request.method.prefix(16)))
        let tenths = Int((max(0, milliseconds) * 10).rounded())
        let time = "\(tenths / 10).\(tenths % 10)"
        return
            "\(method) \(redacted(request.path)) \(response.status) \(bytes) bytes \(time) ms \(request.remoteAddress)"
    }

    /// `path` as the log shows it: in a path of two segments or more every segment but the last is
    /// shown as `…`, so that no secret, right or nearly right, reaches a log (`/S/../S/work.ics` included);
    /// at most 200 characters, no control characters.
    static func redacted(_ path: String) -> String {
        if let plain = redactedPlain(path) { return plain }
        var parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.count >= 3 {
            for index in 1..<(parts.count - 1) { parts[index] = "…" }
        }
        let joined = parts.joined(separator: "/")
        let cut = joined.count > 200 ? joined.prefix(200) + "…" : Substring(joined)
        return PrintableText.printable(String(cut)).replacingOccurrences(of: " ", with: "%20")
    }

    /// ``redacted(_:)`` of the usual request path, printable ASCII without spaces and at most 200 bytes,
    /// worked out on its bytes (this runs for every request); nil for any other path.
    private static func redactedPlain(_ path: String) -> String? {
        let bytes = path.utf8
        guard bytes.count <= 200, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        let slash = UInt8(ascii: "/")
        guard let first = bytes.firstIndex(of: slash), let last = bytes.lastIndex(of: slash), first != last else {
            return path
        }
        let hidden = bytes[bytes.index(after: first)..<last].reduce(1) { $1 == slash ? $0 + 1 : $0 }
        return String(path[..<first]) + "/" + String(repeating: "…/", count: hidden)
            + String(path[path.index(after: last)...])
    }
}
