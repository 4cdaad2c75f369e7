// swift-tools-version:6.1
import PackageDescription

// Layers, bottom to top. Data flows one way: tree → scanner/watcher → model → catalogue → view.
// Each target depends on exactly the modules it imports (`.ci/check-dependencies`, run by `make test`).
//   SystemCalls       thin typed wrappers over Linux calls; FileName and FilePath, bytes compared as bytes
//   Codecs            formats that know nothing of bundles: property lists, JSON, text decoding, Base64, hex
//   BundleModel       the rules of BUNDLES.md: recognition, Info files, localization, display names
//   CompactStorage    names packed in one byte array and an index of 4-byte ids, the one LRU policy:
//                     the view's node table and the watcher's tree at a million entries
//   Records           what the catalogue keeps and a scan reports (directory rows, scan events, the
//                     known tree), shared by Scanner and Catalogue so that neither imports the other
//   Archives          bundles inside .ipa, .zip, .tar and flat .pkg/.xar files (libarchive), in budgets
//   PaxTar            a package as an uncompressed pax tar: its layout, headers, checked reads
//   IconImages        icon files (.icns, TIFF, PNG) to PNG for the view's Icon.png
//   Scanner           the parallel walk that turns a tree into model records
//   CatalogueReading  how the catalogue is read, on any connection: its SQL, row decoding, file rules,
//                     and CatalogueLookup (SQLite's own API: no GRDB, no Foundation)
//   Catalogue         the SQLite store (GRDB): schema, migrations, writes, queries, the update stream type
//   Indexer           scanner → catalogue: initial and incremental index runs
//   Watcher           inotify → catalogue: keeps it current, tells what changed (CatalogueUpdate)
//   View              the FUSE view (libfuse 3 low-level API): a reader of the catalogue and the tree
//   Publishing        the catalogue's outbox → PostgreSQL (libpq): one host's rows, and queries across hosts
//   SymbolServer      the HTTP symbol server (`serve-symbols`): debuginfod and symbolicator's layouts (SwiftNIO)
//   WebInventory      the web inventory (`serve-web`): pages, JSON, icons and reports, answered through
//                     the symbol server's page seam (swift-mustache templates)
//   Service           the composition of watcher and view (`mount`, `serve`), systemd's notify protocol
//   CatalogueCommands `query` and `symbols` as requests, their plain command lines and output: the
//                     `bundlefs` binary (standard library, SQLite, CatalogueReading), which hands
//                     everything else to `bundlefs-full`
//   BundleFSCommands  the command line (swift-argument-parser); `bundlefs-full` is its main
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]
// The modules that read and index trees, optimized in debug builds too: the tests run the debug
// `bundlefs` over generated trees, and unoptimized these were most of the tests' CPU time
// (Docs/testing.md, its figures). They hold no assert(), which -O would drop.
let optimized: [SwiftSetting] = strict + [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "bundlefs",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "bundlefs", targets: ["bundlefs"]),
        .executable(name: "bundlefs-full", targets: ["bundlefs-full"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
    ],
    targets: [
        .target(name: "CSystemShims"),
        // libfuse 3's low-level API, from Debian's libfuse3-dev through pkg-config.
        .systemLibrary(name: "CFuse", pkgConfig: "fuse3", providers: [.apt(["libfuse3-dev"])]),
        // Icon images (BUNDLES.md section 8), from Debian's -dev packages; Docs/dependencies.md says why.
        .systemLibrary(name: "CIcns", pkgConfig: "libicns", providers: [.apt(["libicns-dev"])]),
        .systemLibrary(name: "CTiff", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
        .systemLibrary(name: "CPng", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"])]),
        // Archives (BUNDLES.md section 10): libarchive from Debian's libarchive-dev.
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        .target(name: "Archives", dependencies: ["BundleModel", "CArchive", "SystemCalls"], swiftSettings: optimized),
        .target(name: "SystemCalls", dependencies: ["CSystemShims"], swiftSettings: optimized),
        // Property lists, JSON, text decoding, Base64 and hex: pure, and used by the rules, not part of them.
        .target(name: "Codecs", swiftSettings: optimized),
        .target(
            name: "BundleModel", dependencies: ["Codecs", "SystemCalls"],
            // The system types table (rule 1 and rule 28), embedded: the binary needs no data file beside it.
            resources: [.embedInCode("Recognition/SystemTypes.tsv")], swiftSettings: optimized),
        // Icon files (.icns, .tiff, .png) to PNG, for the view's Icon.png: the model finds the file, this decodes it.
        // A package as a pax tar: its layout from one walk, its headers, reads checked against that snapshot.
        .target(name: "PaxTar", dependencies: ["SystemCalls"], swiftSettings: strict),
        .target(name: "IconImages", dependencies: ["BundleModel", "CIcns", "CPng", "CTiff", "SystemCalls"], swiftSettings: strict),
        .target(name: "Records", dependencies: ["BundleModel", "CompactStorage", "SystemCalls"], swiftSettings: optimized),
        .target(name: "CompactStorage", dependencies: ["SystemCalls"], swiftSettings: optimized),
        .target(name: "Scanner", dependencies: ["Archives", "BundleModel", "Records", "SystemCalls"], swiftSettings: optimized),
        // How the catalogue is read, on GRDB's connections or SQLite's own: SQL, row decoding, the
        // file's rules. Neither GRDB nor Foundation: the query-only `bundlefs` is built on it.
        .target(
            name: "CatalogueReading",
            dependencies: ["BundleModel", "Codecs", "SystemCalls", .product(name: "GRDBSQLite", package: "GRDB.swift")],
            swiftSettings: optimized),
        .target(
            name: "Catalogue",
            dependencies: [
                "BundleModel", "CatalogueReading", "Codecs", "Records", "SystemCalls", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict),
        // Publishing to PostgreSQL (SPEC "Many hosts"): libpq from Debian's libpq-dev; Docs/dependencies.md says why.
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(
            name: "Publishing",
            dependencies: ["BundleModel", "Codecs", "CPostgres", "Catalogue", "SystemCalls", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
        .target(name: "Indexer", dependencies: ["BundleModel", "Catalogue", "Records", "Scanner", "SystemCalls"], swiftSettings: strict),
        .target(
            name: "Watcher",
            dependencies: [
                "BundleModel", "Catalogue", "CompactStorage", "Indexer", "Records", "Scanner", "SystemCalls",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .target(
            name: "View",
            dependencies: [
                "BundleModel", "CFuse", "Catalogue", "Codecs", "CompactStorage", "IconImages", "PaxTar", "SystemCalls",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // The HTTP symbol server (SPEC "Symbol stores"); Docs/dependencies.md says why SwiftNIO.
        .target(
            name: "SymbolServer",
            dependencies: [
                "BundleModel", "Catalogue", "Codecs", "SystemCalls", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict),
        // The web inventory (SPEC "The web inventory"); Docs/dependencies.md says why swift-mustache.
        .target(
            name: "WebInventory",
            dependencies: [
                "BundleModel", "Catalogue", "CatalogueCommands", "CatalogueReading", "Codecs", "CompactStorage", "IconImages", "SymbolServer", "SystemCalls",
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            swiftSettings: strict),
        .target(
            name: "Service",
            dependencies: [
                "BundleModel", "Catalogue", "CatalogueReading", "Indexer", "Publishing", "Scanner", "SymbolServer", "SystemCalls", "View", "Watcher", "WebInventory",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // The commands that only read the catalogue (query, symbols) as requests, their output and
        // their plain command lines: all the query-only `bundlefs` links, so that a lookup loads
        // SQLite and no other C library, nor Foundation, GRDB or swift-argument-parser (Docs/packaging.md).
        .target(
            name: "CatalogueCommands", dependencies: ["BundleModel", "CatalogueReading", "Codecs", "SystemCalls"], swiftSettings: strict),
        .target(
            name: "BundleFSCommands",
            dependencies: [
                "Archives", "BundleModel", "Catalogue", "CatalogueCommands", "Codecs", "IconImages", "Indexer", "Publishing", "Scanner", "Service",
                "SymbolServer", "SystemCalls", "Watcher", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // The Swift runtime linked in, in release builds (the package's is static whole): loading
        // it as eight libraries through a search path, and relocating them, made the dynamic
        // build's lookup 2.35 times sqlite3's (Docs/packaging.md). Only this link changes, no module
        // is rebuilt. Not in debug builds: the test bundle links executables' objects with their
        // linker settings, and XCTest and swift-testing are not there as static libraries.
        .executableTarget(
            name: "bundlefs", dependencies: ["CatalogueCommands"], swiftSettings: strict,
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux], configuration: .release))]),
        .executableTarget(name: "bundlefs-full", dependencies: ["BundleFSCommands"], swiftSettings: strict),
        .executableTarget(
            name: "bundlefs-bench",
            dependencies: ["BundleModel", "Catalogue", "Codecs", "Fixtures", "Indexer", "Records", "Scanner", "SystemCalls", "TestSupport"],
            swiftSettings: strict),
        .executableTarget(name: "bundlefs-fuzz", dependencies: ["Archives", "BundleModel", "CArchive", "Codecs", "Fixtures", "IconImages", "SystemCalls"], swiftSettings: strict),
        .executableTarget(name: "bundlefs-sample", dependencies: ["Fixtures"], swiftSettings: strict),
        // Our own generated trees: the sample tree, test fixtures and the benchmark tree.
        .target(name: "Fixtures", dependencies: ["BundleModel", "Codecs", "IconImages", "SystemCalls"], swiftSettings: optimized),
        .testTarget(name: "SystemCallsTests", dependencies: ["Fixtures", "SystemCalls"], swiftSettings: strict),
        .testTarget(name: "CodecsTests", dependencies: ["Codecs", "Fixtures"], swiftSettings: strict),
        .testTarget(name: "CompactStorageTests", dependencies: ["CompactStorage"], swiftSettings: strict),
        .testTarget(
            name: "BundleModelTests", dependencies: ["BundleModel", "Codecs", "Fixtures", "SystemCalls", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "ArchiveTests", dependencies: ["Archives", "BundleModel", "Catalogue", "Fixtures", "Indexer", "SystemCalls", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "IconImagesTests", dependencies: ["CIcns", "Fixtures", "IconImages", "SystemCalls", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "PublishingTests",
            dependencies: ["BundleModel", "Catalogue", "Fixtures", "Indexer", "Publishing", "SystemCalls", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "IndexTests",
            dependencies: [
                "Indexer", "Catalogue", "Records", "Scanner", "BundleModel", "Codecs", "SystemCalls", "Fixtures", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "CommandTests",
            dependencies: ["BundleFSCommands", "BundleModel", "CatalogueCommands", "Codecs", "Fixtures", "SystemCalls", "TestSupport", "bundlefs", "bundlefs-full",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict),
        .target(
            name: "TestSupport",
            dependencies: ["BundleModel", "Catalogue", "Fixtures", "Indexer", "Scanner", "SystemCalls"],
            path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "PaxTarTests", dependencies: ["Fixtures", "PaxTar", "SystemCalls", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "ViewTests",
            dependencies: ["BundleModel", "Catalogue", "Codecs", "Fixtures", "IconImages", "Indexer", "PaxTar", "SystemCalls", "TestSupport", "View", "bundlefs", "bundlefs-full"],
            swiftSettings: strict),
        .testTarget(
            name: "ServiceTests",
            dependencies: ["BundleModel", "Codecs", "Fixtures", "Service", "SymbolServer", "SystemCalls", "TestSupport", "bundlefs", "bundlefs-full"],
            swiftSettings: strict),
        .testTarget(
            name: "SymbolServerTests",
            dependencies: ["BundleModel", "Catalogue", "Fixtures", "SymbolServer", "SystemCalls", "TestSupport", "bundlefs", "bundlefs-full",
                           .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio")],
            swiftSettings: strict),
        .testTarget(
            name: "WebInventoryTests",
            dependencies: ["BundleModel", "Codecs", "Fixtures", "IconImages", "SystemCalls", "TestSupport", "WebInventory", "bundlefs", "bundlefs-full"],
            swiftSettings: strict),
        .testTarget(
            name: "WatchTests",
            dependencies: ["BundleModel", "Catalogue", "Codecs", "Fixtures", "SystemCalls", "TestSupport", "Watcher", "bundlefs", "bundlefs-full"],
            swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
