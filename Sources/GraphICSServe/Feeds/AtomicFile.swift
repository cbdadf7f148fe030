import Foundation
import ICalBridge

#if canImport(Glibc)
    import Glibc
#endif

/// Files replaced whole: a `0600` temporary file beside the file, written, `fsync`ed, renamed over it, then
/// the folder `fsync`ed. A reader sees the old file or the new one; a write that fails part way leaves the
/// old file as it was and removes its temporary. Used for `feeds.json` and the feeds' disk cache.
///
/// Temporaries are named `.<name>.tmp-<pid>-<random>`; one whose process is gone (killed while writing) is
/// removed by the next write of the same file.
public enum AtomicFile {
    public static func write(_ data: Data, to path: String) throws(FeedStoreError) {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        removeLeftovers(of: name, in: folder)
        let temporary = folder + "/" + temporaryPrefix(of: name) + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .posix(.io, "graph-ics cannot write in", path: folder, errno: errno) }
        var isOpen = true
        var renamed = false
        defer {
            if isOpen { close(fd) }
            if !renamed { unlink(temporary) }
        }
        // open's mode is filtered through the umask; set it exactly.
        guard fchmod(fd, 0o600) == 0 else { throw .posix(.io, "graph-ics cannot write", path: path, errno: errno) }
        if let failure = data.withUnsafeBytes({ POSIXFile.writeAll(fd, $0) }) {
            throw .posix(.io, "graph-ics could not write", path: path, errno: failure)
        }
        guard fsync(fd) == 0 else { throw .posix(.io, "graph-ics could not write", path: path, errno: errno) }
        isOpen = false
        guard close(fd) == 0 else { throw .posix(.io, "graph-ics could not write", path: path, errno: errno) }
        guard rename(temporary, path) == 0 else {
            throw .posix(.io, "graph-ics could not replace", path: path, errno: errno)
        }
        renamed = true
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if descriptor >= 0 {
            // Best effort: some file systems refuse fsync on folders.
            _ = fsync(descriptor)
            close(descriptor)
        }
    }

    static func temporaryPrefix(of name: String) -> String {
        "." + name + ".tmp-"
    }

    /// Removes the temporaries of `name` whose writing process no longer runs; a live writer's stays.
    static func removeLeftovers(of name: String, in folder: String) {
        let prefix = temporaryPrefix(of: name)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for entry in names where entry.hasPrefix(prefix) {
            guard let pid = Int32(entry.dropFirst(prefix.count).prefix { $0 != "-" }) else { continue }
            if kill(pid, 0) != 0, errno == ESRCH { unlink(folder + "/" + entry) }
        }
    }
}
