internal import CCurl
internal import CLibical
internal import CMicroHTTPD
internal import CSQLite
import Foundation

/// The versions of the C libraries graph-ics runs with, read from the libraries loaded into this process
/// (not the headers it was built against): what `graph-ics --version` reports, since a Debian update can
/// change any of them under an installed binary.
enum LinkedLibraries {
    /// `libical 3.0.16`, `libcurl 7.88.1`, `SQLite 3.40.1`, `libmicrohttpd 0.9.75`, in that order.
    static var versions: [(name: String, version: String)] {
        [
            ("libical", libical), ("libcurl", libcurl), ("SQLite", sqlite), ("libmicrohttpd", microhttpd),
        ]
    }

    /// libical has no version call: the file name of the shared object mapped into this process
    /// (`libical.so.3.0.16` in /proc/self/maps) gives the release; the headers' version when that cannot be
    /// read (a static libical).
    static var libical: String {
        let built = "\(ICAL_MAJOR_VERSION).\(ICAL_MINOR_VERSION).\(ICAL_PATCH_VERSION)"
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8),
            let line = maps.split(separator: "\n").first(where: { $0.contains("/libical.so.") }),
            let path = line.split(separator: " ", omittingEmptySubsequences: true).last
        else { return built }
        let file = URL(fileURLWithPath: String(path)).resolvingSymlinksInPath().lastPathComponent
        guard let range = file.range(of: ".so.") else { return built }
        let version = file[range.upperBound...]
        return version.split(separator: ".").count == 3 ? String(version) : built
    }

    /// `curl_version_info`'s `version` (present in every age of the struct, so the first is asked for).
    static var libcurl: String {
        curl_version_info(CURLVERSION_FIRST).flatMap { $0.pointee.version }.map { String(cString: $0) } ?? "unknown"
    }

    /// `sqlite3_libversion()`.
    static var sqlite: String { String(cString: sqlite3_libversion()) }

    /// `MHD_get_version()`.
    static var microhttpd: String { MHD_get_version().map { String(cString: $0) } ?? "unknown" }
}
