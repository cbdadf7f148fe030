// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "graph-ics",
    products: [
        .executable(name: "graph-ics", targets: ["GraphICSCLI"]),
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
            dependencies: [],
            exclude: ["BEHAVIOURS.md"]
        ),
        // The stand-in as a program of its own, for scripts/bench-graph and for trying graph-ics offline.
        .executableTarget(
            name: "GraphStandInServer",
            dependencies: ["GraphStandIn"]
        ),
        .executableTarget(
            name: "GraphICSCLI",
            dependencies: ["ICalBridge", "GraphICS", "CGlibc"]
        ),
        .testTarget(
            name: "ICalBridgeTests",
            dependencies: ["ICalBridge"]
        ),
        .testTarget(
            name: "GraphICSTests",
            dependencies: ["GraphICS", "GraphStandIn"]
        ),
        .testTarget(
            name: "GraphICSCLITests",
            dependencies: ["GraphICSCLI", "GraphICS", "GraphStandIn"]
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
