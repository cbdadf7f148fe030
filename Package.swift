// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "graph-ics",
    products: [
        .executable(name: "graph-ics", targets: ["GraphICSCLI"]),
        .library(name: "ICalBridge", targets: ["ICalBridge"]),
    ],
    dependencies: [],
    targets: [
        .systemLibrary(
            name: "CLibical",
            pkgConfig: "libical",
            providers: [.apt(["libical-dev"])]
        ),
        .target(
            name: "ICalBridge",
            dependencies: ["CLibical"]
        ),
        .executableTarget(
            name: "GraphICSCLI",
            dependencies: ["ICalBridge"]
        ),
        .testTarget(
            name: "ICalBridgeTests",
            dependencies: ["ICalBridge"]
        ),
        .testTarget(
            name: "GraphICSCLITests",
            dependencies: ["GraphICSCLI"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
