import Archives
import ArgumentParser
import BundleModel
import Catalogue
import CatalogueCommands
import Codecs
import Foundation
import IconImages
import Indexer
import SystemCalls

struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Everything bundlefs knows about one bundle or package, or about every bundle inside an archive, read from disk (no catalogue needed).",
        discussion: "When a catalogue exists, its package claims (rule 14) are taken into account.")

    @Argument(help: ArgumentHelp("The bundle or package directory.", valueName: "path"))
    var path: String

    @Flag(help: "Print a JSON object instead of text.")
    var json = false

    @OptionGroup var common: CommonOptions

    func run() throws {
        let languages = try common.languages()
        if let archived = try BundleReading.readArchive(path, common: common) {
            if json {
                print(JSONValue.array(archived.records.map {
                    ContractJSON.object(for: $0, languages: languages, detailed: true, archiveError: archived.error)
                }).serialized(pretty: true))
            } else {
                var blocks = archived.records.map { Self.describe($0, languages: languages) }
                if let installer = archived.installer { blocks.insert(Self.describe(installer), at: 0) }
                if archived.records.isEmpty { blocks.insert("No bundles in \(TerminalText.safe(path)) (\(archived.members) members)", at: 0) }
                print(blocks.joined(separator: "\n\n"))
            }
            // An archive not read whole is a failed read, even when some bundles came out of it: its
            // error goes to standard error, once.
            if let error = archived.error { throw NegativeAnswer(description: "\(path): \(TerminalText.safe(error))") }
            return
        }
        let record = try BundleReading.read(path, common: common)
        if json {
            print(ContractJSON.object(for: record, languages: languages, detailed: true).serialized(pretty: true))
            return
        }
        print(Self.describe(record, languages: languages))
    }

    static func describe(_ record: BundleRecord, languages: [LanguageTag]) -> String {
        var lines: [(String, String)] = [
            ("Path", (record.archive ?? record.key).string),
            ("Display name", record.displayName(for: languages)),
        ]
        if let member = record.member { lines.append(("Member", member.string)) }
        if let installation = record.installation {
            lines.append(("Installs to", installation.installsTo.string + (installation.component.map { " (component \($0))" } ?? "")))
        }
        lines += [
            ("Identifier", record.identifier ?? "-"),
            ("Kind", record.kind.rawValue),
            ("Package", record.isPackage ? "yes (\(record.packageReasons.names.joined(separator: ", ")))" : "no"),
            ("Bundle", record.isBundle ? "yes (\(record.layout?.rawValue ?? "?") layout)" : "no"),
        ]
        if let version = record.version {
            let hex = String(record.numericVersion, radix: 16)
            lines.append(("Version", "\(version) (packed 0x\(String(repeating: "0", count: 8 - hex.count) + hex))"))
        }
        if let shortVersion = record.shortVersion { lines.append(("Short version", shortVersion)) }
        if let infoFile = record.infoFile { lines.append(("Info file", "\(infoFile) (\(record.infoFormat?.rawValue ?? "unread"))")) }
        if let region = record.developmentRegion { lines.append(("Development region", region)) }
        if !record.localizations.isEmpty {
            lines.append(("Localizations", record.localizations.joined(separator: ", ")))
            lines.append(("Chosen for \(languages.map(\.description).joined(separator: ",").nilIfEmpty ?? "no language")",
                          record.localizationChooser.lprojSearchOrder(for: languages).joined(separator: ", ").nilIfEmpty ?? "-"))
        }
        if let executable = record.executable { lines.append(("Executable", executable.string)) }
        if let icon = record.icon { lines.append(("Icon", icon.string)) }
        for slice in record.binaries {
            let details = [slice.fileType, slice.uuid, slice.platform.map { "\($0) \(slice.minOS ?? "?")" }, slice.sdk.map { "SDK \($0)" },
                           slice.signingIdentifier.map { "signed \($0)" + (slice.teamIdentifier.map { " (team \($0))" } ?? "") },
                           slice.signature == .unreadable ? "unreadable signature" : nil].compactMap { $0 }
            lines.append(("Binary", "\(slice.file) \(slice.arch): " + details.joined(separator: ", ")))
        }
        for type in record.documentTypes where !type.extensions.isEmpty || !type.contentTypes.isEmpty {
            lines.append(("Document type", (type.extensions + type.contentTypes).joined(separator: ", ") + (type.isPackage ? " (package)" : "")))
        }
        if let backup = record.backup { lines += backupLines(backup) }
        for error in record.errors { lines.append(("Error", error)) }
        for warning in record.warnings { lines.append(("Warning", warning)) }
        let width = lines.map(\.0.count).max() ?? 0
        return lines.map { label, value in
            label + ":" + String(repeating: " ", count: width - label.count + 1) + TerminalText.safe(value)
        }.joined(separator: "\n")
    }
}

extension ShowCommand {
    /// A flat installer package's product and components (rule 33): what it installs, and where.
    static func describe(_ installer: InstallerPackage) -> String {
        var lines: [(String, String)] = []
        if let product = installer.product {
            lines.append(("Product", [product.title, product.version, product.identifier.map { "(\($0))" }].compactMap { $0 }.joined(separator: " ").nilIfEmpty ?? "-"))
        }
        for (directory, component) in installer.components {
            let name = directory.isEmpty ? "" : " [\(directory)]"
            lines.append(("Component", "\(component.identifier ?? "-") \(component.version ?? "-") into \(component.installLocation)\(name)"))
            for bundle in component.bundles {
                lines.append(("Installs", "\(bundle.identifier ?? "-") \(bundle.version ?? "-") at \(component.installPath(of: bundle.path))"))
            }
            if let error = installer.payloadErrors[directory.appending("Payload")] { lines.append(("Payload error", error)) }
        }
        for problem in installer.problems { lines.append(("Error", problem)) }
        let width = lines.map(\.0.count).max() ?? 0
        return lines.map { label, value in
            label + ":" + String(repeating: " ", count: width - label.count + 1) + TerminalText.safe(value)
        }.joined(separator: "\n")
    }

    /// A Time Machine backup's lines (rule 34): which Mac, its snapshots, how big.
    static func backupLines(_ backup: TimeMachineBackup) -> [(String, String)] {
        var lines = [("Backed-up Mac", [backup.model, backup.hostUUID.map { "hardware UUID \($0)" }].compactMap { $0 }.joined(separator: ", ").nilIfEmpty ?? "-")]
        lines.append(("Snapshots", "\(backup.snapshots)" + (backup.lastSnapshot.map { ", the last completed \(PlistDate.formatISO8601($0))" } ?? "")))
        lines.append(("Image size", backup.size.map { "\($0) bytes" } ?? "-"))
        lines.append(("Size on disk", "\(backup.sizeOnDisk) bytes in \(backup.bands) bands" + (backup.bandSize.map { " of \($0) bytes" } ?? "")))
        return lines
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}

/// Reading one bundle from disk for `show` and `resolve`.
enum BundleReading {
    static func read(_ path: String, common: CommonOptions) throws -> BundleRecord {
        let canonical: FilePath
        do { canonical = try Indexer.canonicalRoot(absolutePath(path)) } catch { throw UserError("\(error)") }
        // Claims come from the catalogue when there is one; without it, no extension is claimed.
        let claimed = (try? Catalogue(path: common.catalogueFile, mode: .readOnly).claimedTypes()) ?? ClaimedTypes()
        let root = try ScanRoot.fileSystemRoot()
        let directory: DirectoryContext
        do { directory = try DirectoryContext.open(canonical, in: root) } catch { throw UserError("\(path): \(error)") }
        guard var record = BundleInspector(root: root, settings: InspectionSettings(claimed: claimed)).inspect(directory) else {
            throw UserError("\(path) is neither a bundle nor a package")
        }
        checkIcon(&record)
        return record
    }

    /// The bundles inside an archive file (rule 26), or nil when `path` is not an archive bundlefs
    /// looks into.
    static func readArchive(_ path: String, common: CommonOptions) throws -> ArchiveInspector.Result? {
        let absolute = absolutePath(path)
        guard ArchiveInspector.isArchiveName(absolute.lastComponent), (try? FileStatus.of(absolute))?.type == .regular else { return nil }
        let canonical: FilePath
        do { canonical = try absolute.resolved() } catch { throw UserError("\(path): \((error as? SystemError)?.message ?? "\(error)")") }
        let root = try ScanRoot.fileSystemRoot()
        let inspector = ArchiveInspector(inspector: BundleInspector(root: root))
        return inspector.inspect(archive: canonical) { try Descriptor.open(canonical, flags: Descriptor.probeRead) }
    }

    /// The index records where the icon is without opening it; reading one bundle can afford to
    /// convert it, so a broken icon is reported here (rule 22: a warning, never an error).
    static func checkIcon(_ record: inout BundleRecord) {
        guard let icon = record.icon else { return }
        do {
            _ = try IconConverter.png(from: try Descriptor.open(icon, flags: Descriptor.readOnly | O_NONBLOCK))
        } catch {
            record.warnings.append("icon \(icon): \(error)")
        }
    }
}
