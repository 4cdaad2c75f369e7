import ArgumentParser
import CatalogueCommands
import Foundation
import Indexer
import Scanner

struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Scan roots into the catalogue (creating it) and print a summary.",
        discussion: "The first run reads everything; later runs list only directories that changed and re-read only bundles whose files changed.")

    @Argument(help: ArgumentHelp("Directory trees to scan.", valueName: "root"))
    var roots: [String]

    @OptionGroup var common: CommonOptions

    @Option(help: ArgumentHelp("Threads to walk with (default: one per core).", valueName: "n"))
    var threads: Int?

    func validate() throws {
        if roots.isEmpty { throw ValidationError("give at least one root to index") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
    }

    func run() throws {
        let logger = common.logger("bundlefs.index")
        let catalogue = try common.openCatalogue(.readWrite)
        var options = ScanOptions()
        if let threads { options.threads = threads }
        let indexer = Indexer(catalogue: catalogue, options: options)
        var failed = false
        for root in roots {
            let progress = ScanProgress()
            let line = ProgressLine(label: "indexing \(root)", progress: progress)
            do {
                let summary = try indexer.index(root: absolutePath(root), progress: progress)
                line?.stop()
                print(Self.describe(summary))
                for problem in summary.problems { logger.warning("\(problem)") }
            } catch let error as IndexError {
                line?.stop()
                printError("\(error)")
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }

    static func describe(_ summary: IndexSummary) -> String {
        var text = "\(TerminalText.safe(summary.root.string)): \(summary.bundlesUnderRoot) bundles and packages"
        if summary.bundlesWithErrors > 0 { text += " (\(summary.bundlesWithErrors) with errors)" }
        switch summary.foldersNamedLikeBundles {
        case 0: break
        case 1: text += ", 1 folder named like a bundle"
        case let count: text += ", \(count) folders named like bundles"
        }
        text += " in \(summary.directoriesVisited) directories; \(summary.bundlesRead) read, \(summary.directoriesListed) directories listed"
        if summary.removedBundles > 0 || summary.removedDirectories > 0 {
            text += ", \(summary.removedBundles) bundles and \(summary.removedDirectories) directories gone"
        }
        text += String(format: "; %.2f s", summary.seconds)
        return text
    }
}

