import BundleModel
import Catalogue
import Codecs
import Fixtures
import Foundation
import SystemCalls
import TestSupport

/// SPEC.md's Launch Services figure: `open-with` answers in under 5 ms in process at 50,000
/// applications. The bundle tree holds 18,000 applications and the million tree 45,000, so this
/// section indexes a tree of its own: 50,000 macOS apps with the benchmark tree's claims, each only
/// its Info.plist, PkgInfo and executable (`bench-out/launch-tree`, generated once; about 200,000
/// entries, indexed in seconds), then times `Catalogue.handlers` — what `open-with` calls — for a
/// mix of questions.
enum OpenWithBench {
    static let applications = 50_000
    static let repeats = 200
    /// An extension many claim, a type reached through conformance, an app-declared type (its
    /// extension), a scheme and an extension nobody declares.
    static let questions: [(String, HandlerRanking.Question)] = [
        ("an extension many claim (.jpg)", .file(extension: "jpg")),
        ("a type through conformance (public.python-script)", .type("public.python-script")),
        ("an app-declared type (.\(BenchmarkTree.sharedFormatExtension(3)))", .file(extension: BenchmarkTree.sharedFormatExtension(3))),
        ("a scheme (https)", .scheme("https")),
        ("an unknown extension (.zzq)", .file(extension: "zzq")),
    ]

    static func run(binary: String, output: String, report: inout Report) throws {
        let tree = BenchmarkTree(root: Paths.join(output, "launch-tree"), bundles: applications, applicationsOnly: true)
        if !tree.isComplete {
            progress("generating \(applications) applications that claim types ...")
            tree.generate()
        }
        let cataloguePath = Paths.join(output, "launch.sqlite")
        CatalogueFiles.remove(cataloguePath)
        let indexSeconds = Timing.run(binary, ["index", tree.root], environment: ["BUNDLEFS_CATALOGUE": cataloguePath])
        let catalogue = try Catalogue(path: cataloguePath, mode: .readOnly)
        let counts = try Subprocess.run("/usr/bin/sqlite3", [cataloguePath, "SELECT (SELECT count(*) FROM launch_lists) || ' claim lists of ' || (SELECT sum(length(entries)) FROM launch_lists) || ' bytes, ' || (SELECT count(*) FROM type_tags) || ' type tags'"], timeout: 60)
            .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        report.notes.append(String(format: "open-with: %d applications indexed in %.1f s; %@", applications, indexSeconds, counts))

        for (label, question) in questions {
            let handlers = try catalogue.handlers(of: question) // also warms the statements and pages
            var samples: [Double] = []
            for _ in 0..<repeats { samples.append(try Timing.seconds { _ = try catalogue.handlers(of: question) }) }
            let p50 = Timing.percentile(samples, 0.5) * 1000, p99 = Timing.percentile(samples, 0.99) * 1000
            report.add("open-with in process: \(label)", value: String(format: "p50 %.2f ms, p99 %.2f ms (%d handlers)", p50, p99, handlers.count),
                       goal: "< 5 ms")
        }
        try hostileChain(binary: binary, output: output, report: &report)
    }

    /// One application declaring a conformance chain of 4,000 types, each listing `.txt`'s
    /// extension too (issue 37: 23 s for `open-with --extension txt` when each level of the walk
    /// decoded the application again): the whole command, and the answer in process.
    static func hostileChain(binary: String, output: String, report: inout Report) throws {
        let steps = 4_000
        let root = Paths.join(output, "chain-tree")
        try? FileManager.default.removeItem(atPath: root)
        let declarations: [PlistValue] = (0..<steps).map { step in
            .dictionary([
                "UTTypeIdentifier": .string("org.example.Step\(step)"),
                "UTTypeConformsTo": .array([.string(step + 1 < steps ? "org.example.Step\(step + 1)" : "public.plain-text")]),
                "UTTypeTagSpecification": .dictionary(["public.filename-extension": .array([.string("txt")])]),
            ])
        }
        let tree = TreeWriter(root: root)
        tree.macApp("Chain.app", identifier: "org.example.chain", info: ["UTExportedTypeDeclarations": .array(declarations)])
        tree.macApp("Text.app", identifier: "org.example.text", info: ["CFBundleDocumentTypes": .array([.dictionary([
            "LSItemContentTypes": .array([.string("public.text")]), "CFBundleTypeRole": .string("Viewer"),
        ])])])
        let cataloguePath = Paths.join(output, "chain.sqlite")
        CatalogueFiles.remove(cataloguePath)
        _ = Timing.run(binary, ["index", root], environment: ["BUNDLEFS_CATALOGUE": cataloguePath])
        let command = (0..<5).map { _ in
            Timing.run(binary, ["open-with", "--extension", "txt"], environment: ["BUNDLEFS_CATALOGUE": cataloguePath])
        }
        let catalogue = try Catalogue(path: cataloguePath, mode: .readOnly)
        var samples: [Double] = []
        for _ in 0..<20 { samples.append(try Timing.seconds { _ = try catalogue.handlers(of: .file(extension: "txt")) }) }
        report.add("open-with --extension txt, one app declaring a \(steps)-step chain", value: String(
            format: "command p50 %.1f ms; in process p50 %.2f ms (issue 37: 23 s before)", Timing.percentile(command, 0.5) * 1000,
            Timing.percentile(samples, 0.5) * 1000), goal: "milliseconds")
    }
}
