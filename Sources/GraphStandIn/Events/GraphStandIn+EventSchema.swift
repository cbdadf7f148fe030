// What the stand-in knows of Graph's event type, for `scripts/check-contract`: the accepted-property table,
// the read-only properties, the checked types and the enum values (`graph-standin --dump-schema`), and the
// request bodies it answered with a 2xx, recorded when `GRAPH_STANDIN_BODIES` names a folder.
import Foundation

extension GraphStandIn {
    /// The environment variable naming the folder where every stand-in records the bodies of the requests it
    /// answered with a 2xx (one JSON file each), for `scripts/check-contract` to validate against Graph's
    /// published metadata.
    public static let bodiesVariable = "GRAPH_STANDIN_BODIES"

    /// The stand-in's event schema as JSON: `properties` (lower-cased, as the table holds them), `readOnly`,
    /// `types` (property → Graph type) and `enums` (property → Graph enum type and members).
    public static func schemaDump() throws -> Data {
        var enums: [String: Any] = [:]
        for (property, (type, values)) in enumValues {
            enums[property] = ["type": type, "values": values.sorted()]
        }
        var types: [String: String] = [:]
        for (name, type, _) in typedEventProperties { types[name] = type }
        let schema: [String: Any] = [
            "entity": "microsoft.graph.event",
            "properties": eventProperties.sorted(),
            "readOnly": readOnlyEventProperties.sorted(),
            "types": types,
            "enums": enums,
        ]
        return try JSONSerialization.data(withJSONObject: schema, options: [.prettyPrinted, .sortedKeys])
    }

    /// Records a request with a body that was answered with a 2xx into ``bodiesVariable``'s folder, when set:
    /// one line of JSON `{"method", "path", "viaBatch", "status", "body"}` in the process's own file
    /// (`bodies-PID.jsonl`), each distinct record once. A body that is not JSON is left out: Graph's requests
    /// with a body are JSON.
    static func recordBody(method: String, path: String, viaBatch: Bool, status: Int, body: Data) {
        guard (200..<300).contains(status), !body.isEmpty, let recorder = BodyRecorder.shared,
            let json = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        else { return }
        let record: [String: Any] = [
            "method": method, "path": path, "viaBatch": viaBatch, "status": status, "body": json,
        ]
        guard let line = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]) else { return }
        recorder.append(line)
    }
}

/// The file of one process's recorded bodies (``GraphStandIn/recordBody(method:path:viaBatch:status:body:)``).
///
/// `@unchecked Sendable`: its state is used under the lock only.
private final class BodyRecorder: @unchecked Sendable {
    static let shared: BodyRecorder? = {
        guard let folder = ProcessInfo.processInfo.environment[GraphStandIn.bodiesVariable], !folder.isEmpty else {
            return nil
        }
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = URL(fileURLWithPath: folder).appendingPathComponent("bodies-\(getpid()).jsonl").path
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else { return nil }
        return BodyRecorder(handle)
    }()

    private let lock = NSLock()
    private let handle: FileHandle
    private var seen: Set<Int> = []

    private init(_ handle: FileHandle) {
        self.handle = handle
    }

    func append(_ line: Data) {
        lock.lock()
        defer { lock.unlock() }
        guard seen.insert(line.hashValue).inserted else { return }
        handle.write(line + Data("\n".utf8))
    }
}
