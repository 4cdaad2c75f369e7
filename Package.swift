// swift-tools-version:6.1
import PackageDescription

// Layers, bottom to top (data flows tree → scanner → model → catalogue → view):
//   SystemCalls   thin typed wrappers over Linux calls (listing, stat, xattr, bounded reads)
//   BundleModel   the rules of BUNDLES.md: parsing, recognition, localization, display names
//   Scanner       the parallel walk that turns a tree into model records
//   Catalogue     the SQLite store (GRDB): schema, migrations, writes, queries
//   Indexer       scanner → catalogue: initial and incremental index runs
//   Watcher       inotify → catalogue: keeps it current
//   View          the FUSE view (libfuse 3 low-level API), fed by the watcher
//   Service       `serve` under systemd: configuration, the notify protocol, status and watchdog
//   BundleFSCommands  the command line (swift-argument-parser); `bundlefs` is its main
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "bundlefs",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "bundlefs", targets: ["bundlefs"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(name: "CSystemShims"),
        // libfuse 3's low-level API, from Debian's libfuse3-dev through pkg-config.
        .systemLibrary(name: "CFuse", pkgConfig: "fuse3", providers: [.apt(["libfuse3-dev"])]),
        .target(name: "CFuseShims", dependencies: ["CFuse"]),
        .target(name: "SystemCalls", dependencies: ["CSystemShims"], swiftSettings: strict),
        .target(name: "BundleModel", dependencies: ["SystemCalls"], swiftSettings: strict),
        .target(name: "Records", dependencies: ["BundleModel", "SystemCalls"], swiftSettings: strict),
        .target(name: "Scanner", dependencies: ["BundleModel", "Records", "SystemCalls"], swiftSettings: strict),
        .target(
            name: "Catalogue",
            dependencies: [
                "BundleModel", "Records", "SystemCalls", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict),
        .target(name: "Indexer", dependencies: ["BundleModel", "Catalogue", "Records", "Scanner", "SystemCalls"], swiftSettings: strict),
        .target(
            name: "Watcher",
            dependencies: [
                "BundleModel", "Catalogue", "Indexer", "Records", "Scanner", "SystemCalls",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .target(
            name: "View",
            dependencies: [
                "BundleModel", "CFuse", "CFuseShims", "Catalogue", "SystemCalls", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .target(
            name: "Service",
            dependencies: [
                "BundleModel", "Catalogue", "Scanner", "SystemCalls", "View", "Watcher", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .target(
            name: "BundleFSCommands",
            dependencies: [
                "BundleModel", "Catalogue", "Indexer", "Scanner", "Service", "SystemCalls", "View", "Watcher",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .executableTarget(name: "bundlefs", dependencies: ["BundleFSCommands"], swiftSettings: strict),
        .executableTarget(
            name: "bundlefs-bench",
            dependencies: ["Indexer", "Catalogue", "Scanner", "BundleModel", "SystemCalls", "Fixtures", "TestSupport"],
            swiftSettings: strict),
        .executableTarget(name: "bundlefs-fuzz", dependencies: ["BundleModel", "Fixtures"], swiftSettings: strict),
        .executableTarget(name: "bundlefs-sample", dependencies: ["Fixtures"], swiftSettings: strict),
        // Our own generated trees: the sample tree, test fixtures and the benchmark tree.
        .target(name: "Fixtures", dependencies: ["BundleModel", "SystemCalls"], swiftSettings: strict),
        .testTarget(
            name: "BundleModelTests", dependencies: ["BundleModel", "SystemCalls", "Fixtures", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "IndexTests",
            dependencies: [
                "Indexer", "Catalogue", "Scanner", "BundleModel", "SystemCalls", "Fixtures", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "CommandTests", dependencies: ["TestSupport", "Fixtures", "BundleModel", "SystemCalls", "bundlefs"],
            swiftSettings: strict),
        .target(
            name: "TestSupport",
            dependencies: ["BundleModel", "Catalogue", "Fixtures", "Indexer", "Scanner", "SystemCalls", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(
            name: "ViewTests",
            dependencies: [
                "View", "TestSupport", "Fixtures", "Catalogue", "BundleModel", "SystemCalls", "bundlefs",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "ServiceTests",
            dependencies: ["Service", "View", "TestSupport", "Catalogue", "BundleModel", "SystemCalls", "bundlefs"],
            swiftSettings: strict),
        .testTarget(
            name: "WatchTests",
            dependencies: [
                "TestSupport", "Fixtures", "Catalogue", "BundleModel", "SystemCalls", "bundlefs",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
