import Foundation

@testable import GraphICSSync

/// Every row of every table of a state database, as SQLite quotes them: two snapshots are equal when the
/// state is untouched (whatever tables a later schema adds).
struct StateRows: Equatable, CustomStringConvertible {
    var tables: [String: [String]]

    init(_ state: SyncState) throws {
        let database = state.database
        let names = try database.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            $0.string(0) ?? ""
        }
        var tables: [String: [String]] = [:]
        for name in names {
            let columns = try database.query("SELECT name FROM pragma_table_info(?)", [.text(name)]) {
                $0.string(0) ?? ""
            }
            let row = columns.map { "quote(\"\($0)\")" }.joined(separator: " || '|' || ")
            tables[name] = try database.query("SELECT \(row) FROM \"\(name)\" ORDER BY 1") { $0.string(0) ?? "" }
        }
        self.tables = tables
    }

    var description: String {
        tables.keys.sorted().map { "\($0): \(tables[$0]?.count ?? 0) rows" }.joined(separator: ", ")
    }
}

/// Every file of a folder (items, metadata, anything else) with its bytes and modification time.
struct FolderFiles: Equatable {
    struct File: Equatable {
        var contents: Data
        var modificationNanoseconds: Int64
    }

    var files: [String: File]

    init(_ path: String) throws {
        var files: [String: File] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            var status = stat()
            guard stat(path + "/" + name, &status) == 0 else { continue }
            let time = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
            files[name] = File(
                contents: try Data(contentsOf: URL(fileURLWithPath: path + "/" + name)), modificationNanoseconds: time)
        }
        self.files = files
    }
}
