import Foundation
import GraphICS
import GraphStandIn

@testable import GraphICSSync

/// The push's fixture (the stand-in, a client, a folder and state, December 2026, files written as khal
/// writes them) with a sync run over it; the state directory (lock, conflicts) is the fixture's folder.
final class EngineFixture {
    let push: PushFixture
    var base: PullFixture { push.base }
    var standIn: GraphStandIn { base.standIn }
    var folder: VdirFolder { base.folder }
    var state: SyncState { base.state }
    var stateDirectory: String { base.directory.path }

    init() throws {
        push = try PushFixture()
    }

    func run(
        _ configure: (inout SyncOptions) -> Void = { _ in }, resolver: ((SyncConflict) -> SyncReport.Resolution)? = nil
    ) throws -> SyncReport {
        var options = SyncOptions(window: base.window)
        configure(&options)
        var run = SyncRun(
            client: base.client, state: state, pairing: base.pairing, folder: folder, stateDirectory: stateDirectory,
            options: options)
        run.resolver = resolver
        var archive = ConflictArchive(stateDirectory: stateDirectory)
        archive.now = { Date(timeIntervalSince1970: 1_796_119_205) }  // 2026-12-01T10:00:05Z
        run.archive = archive
        return try run.run()
    }

    /// The outcomes of a report by file name.
    static func outcomes(_ report: SyncReport) -> [String: SyncReport.Outcome] {
        Dictionary(report.items.map { ($0.fileName, $0.outcome) }) { first, _ in first }
    }

    /// The subject of the stand-in's event `id`.
    func subject(_ id: String) -> String? {
        standIn.events().first { $0["id"] as? String == id }?["subject"] as? String
    }

    /// The subject of the stand-in's event with the source UID or iCalUId `uid` (any event whose
    /// subject the fixture set).
    func subjects() -> Set<String> {
        Set(standIn.events().compactMap { $0["subject"] as? String })
    }

    /// Every byte of the folder's item files, by name.
    func folderBytes() throws -> [String: Data] {
        Dictionary(uniqueKeysWithValues: try folder.scan().map { ($0.name, try folder.read($0.name).contents) })
    }

    /// Changes the SUMMARY of the item file `name` as khal would.
    func editSummary(_ name: String, to summary: String) throws {
        try push.edit(name, replacing: "SUMMARY:", with: "SUMMARY:\(summary)")
    }
}
