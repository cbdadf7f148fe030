import Foundation
import GraphICS

/// graph-ics's configuration folder, where the token store, `config` and `feeds.json` live.
enum ConfigDirectory {
    /// `$GRAPH_ICS_CONFIG_DIR`, or where the token store is otherwise.
    static func url(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URL {
        do {
            return try AuthConfiguration.configDirectory(environment)
        } catch {
            throw FetchFailure.failure(error) ?? CommandFailure(.ioError, "\(error)")
        }
    }
}
