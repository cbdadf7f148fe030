// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "graph-ics",
    products: [
        .executable(name: "graph-ics", targets: ["GraphICSMain"]),
        .executable(name: "graph-standin", targets: ["GraphStandInServer"]),
        .library(name: "ICalBridge", targets: ["ICalBridge"]),
        .library(name: "GraphICS", targets: ["GraphICS"]),
    ],
    dependencies: [],
    targets: [
        .systemLibrary(
            name: "CLibical",
            pkgConfig: "libical",
            providers: [.apt(["libical-dev"])]
        ),
        .systemLibrary(name: "CGlibc"),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(
            name: "ICalBridge",
            dependencies: ["CLibical"]
        ),
        .target(
            name: "GraphICS",
            dependencies: ["CCurl", "ICalBridge"]
        ),
        // The Microsoft Graph stand-in the tests start on loopback (HTTP/1.1 over POSIX sockets).
        .target(
            name: "GraphStandIn",
            dependencies: []
        ),
        // The stand-in as a program of its own, for scripts/bench-graph and for trying graph-ics offline
        // (GraphICS for its AtomicFile only).
        .executableTarget(
            name: "GraphStandInServer",
            dependencies: ["GraphStandIn", "GraphICS"]
        ),
        // One mirror per (account, calendar): the only reader of a calendar's changes from Graph (delta
        // rounds, 410 restarts, re-anchoring, change keys), stored in SQLite with a change log its consumers
        // (sync, feeds) read from their own cursors. Holds the SQLite wrapper every SQLite user shares.
        .target(
            name: "GraphICSMirror",
            dependencies: ["CSQLite", "ICalBridge", "GraphICS"]
        ),
        // What `graph-ics sync` keeps on disk: SQLite (the state of each pairing, its lock) and the vdir
        // folder of `.ics` files.
        .target(
            name: "GraphICSSync",
            dependencies: ["CSQLite", "ICalBridge", "GraphICS", "GraphICSMirror"]
        ),
        // What `graph-ics serve` and `graph-ics feed` run on: feed definitions, each feed's live copy of its
        // calendar refreshed from Graph, and the HTTP server (libmicrohttpd, zlib) that serves it.
        .target(
            name: "GraphICSServe",
            dependencies: ["CMicroHTTPD", "CZlib", "CGlibc", "ICalBridge", "GraphICS", "GraphICSMirror"]
        ),
        // The commands of graph-ics: option declarations, parsing, help, completions, the manual page. `demo`
        // runs the Graph stand-in in-process; `--version` asks the C libraries for their versions.
        .target(
            name: "GraphICSDAV",
            dependencies: ["CSQLite", "ICalBridge", "GraphICS", "GraphICSMirror", "GraphICSSync", "GraphICSServe"]
        ),
        .target(
            name: "GraphICSCommands",
            dependencies: [
                "ICalBridge", "GraphICS", "GraphICSMirror", "GraphICSSync", "GraphICSServe", "GraphICSDAV", "GraphStandIn",
                "CLibical",
                "CCurl",
                "CSQLite", "CMicroHTTPD",
            ]
        ),
        // The `graph-ics` executable: sets up the process (allocator, signals) and hands over to GraphICSCommands.
        .executableTarget(
            name: "GraphICSMain",
            dependencies: ["GraphICSCommands", "CGlibc"]
        ),
        // Helpers the test targets share (the package's folders, iCalendar text, a locked value, the one
        // process spawner with its pseudo-terminal, the one raw HTTP client); no test framework in it.
        // CGlibc for posix_spawn's glibc extensions.
        .target(
            name: "TestSupport",
            dependencies: ["CGlibc"],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "ICalBridgeTests",
            dependencies: ["ICalBridge", "TestSupport"]
        ),
        .testTarget(
            name: "GraphICSTests",
            dependencies: ["GraphICS", "GraphStandIn", "TestSupport"]
        ),
        // Runs the built binary: exit statuses, signals, the stand-in.
        .testTarget(
            name: "GraphICSCLITests",
            dependencies: [
                "GraphICSMain", "ICalBridge", "GraphICS", "GraphICSMirror", "GraphICSSync", "GraphStandIn",
                "TestSupport",
            ]
        ),
        .testTarget(
            name: "GraphICSMirrorTests",
            dependencies: ["GraphICSMirror", "GraphICS", "GraphStandIn", "TestSupport"]
        ),
        .testTarget(
            name: "GraphICSSyncTests",
            dependencies: ["GraphICSSync", "GraphICSMirror", "GraphICS", "GraphStandIn", "TestSupport"]
        ),
        .testTarget(
            name: "GraphICSServeTests",
            dependencies: ["GraphICSServe", "GraphICSMirror", "GraphICS", "GraphStandIn", "TestSupport"]
        ),
        // Parsing, help, completions and the manual page, in-process.
        .testTarget(
            name: "GraphICSDAVTests",
            dependencies: ["GraphICSDAV", "GraphICSServe", "GraphICSMirror", "GraphICS", "GraphStandIn", "TestSupport"]
        ),
        .testTarget(
            name: "GraphICSCommandsTests",
            dependencies: ["GraphICSCommands", "TestSupport"],
            exclude: ["Snapshots"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (scripts/fuzz), only when GRAPH_ICS_FUZZ=1 is set while the manifest is read, so that
// `swift build` and `swift test` never see them. Each defines LLVMFuzzerTestOneInput and a main that hands
// over to libFuzzer, so they link only with `-sanitize=fuzzer`.
if Context.environment["GRAPH_ICS_FUZZ"] == "1" {
    package.products += [
        .executable(name: "fuzz-ics", targets: ["FuzzICS"]),
        .executable(name: "fuzz-graph-json", targets: ["FuzzGraphJSON"]),
    ]
    package.targets += [
        .executableTarget(name: "FuzzICS", dependencies: ["ICalBridge"], path: "Fuzz/ICS"),
        .executableTarget(name: "FuzzGraphJSON", dependencies: ["ICalBridge"], path: "Fuzz/GraphJSON"),
    ]
}
