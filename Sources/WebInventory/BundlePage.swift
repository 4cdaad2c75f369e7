import BundleModel
import CatalogueCommands
import Codecs
import SymbolServer
import SystemCalls

extension WebInventory {
    /// `/bundle?path=`: what `show --json` knows of a catalogued bundle, laid out for people.
    func bundlePage(_ web: WebRequest, languages: [LanguageTag]) throws -> PageAnswer {
        guard let bundle = try catalogued(web) else { return notFound(web, languages: languages, "No catalogued bundle has this path.") }
        let record = bundle.record
        var facts: [[String: Any]] = []
        func fact(_ label: String, _ value: String?, link: String? = nil) {
            guard let value, !value.isEmpty else { return }
            facts.append(["label": label, "value": value, "link": link ?? false])
        }
        fact("Host", fleet == nil ? nil : web["host"])
        fact("Path", (record.archive ?? record.key).string)
        fact("Member of the archive", record.member?.string)
        if let installation = record.installation {
            fact("Installs to", installation.installsTo.string + (installation.component.map { " (component \($0))" } ?? ""))
        }
        fact("Identifier", record.identifier)
        fact("Kind", record.kind.rawValue)
        fact("Version", record.version)
        fact("Short version", record.shortVersion)
        fact("Package", record.isPackage ? "yes (\(record.packageReasons.names.joined(separator: ", ")))" : "no")
        fact("Bundle", record.isBundle ? "yes (\(record.layout?.rawValue ?? "?") layout)" : "no")
        fact("Info file", record.infoFile.map { "\($0) (\(record.infoFormat?.rawValue ?? "unread"))" })
        fact("Development region", record.developmentRegion)
        fact("Executable", record.executable?.string)
        fact("Icon", record.icon?.string)
        for target in ["macos/arm64", "macos/x86_64"] {
            if let run = RunTarget(parsing: target), record.executable != nil {
                fact("Runs natively on \(target)", run.admits(record) ? "yes" : "no")
            }
        }
        if let backup = record.backup {
            fact("Backed-up Mac", [backup.model, backup.hostUUID.map { "hardware UUID \($0)" }].compactMap { $0 }.joined(separator: ", "))
            fact("Snapshots", "\(backup.snapshots)" + (backup.lastSnapshot.map { ", the last completed \(PlistDate.formatISO8601($0))" } ?? ""))
            fact("Size on disk", "\(backup.sizeOnDisk) bytes")
        }
        let names: [[String: Any]] = [["localization": "(none asked)", "name": record.displayName(for: [])]]
            + record.localizations.map { localization in
                ["localization": localization, "name": LanguageTag(localization).map { record.displayName(for: [$0]) } ?? record.displayName(for: [])]
            }
        let executable = record.executable?.relative(to: record.key)
        let binaries: [[String: Any]] = record.binaries.map { slice in
            [
                "file": slice.file.string + (slice.file == executable ? " (executable)" : ""), "arch": slice.arch, "fileType": slice.fileType,
                "uuid": slice.uuid ?? "", "platform": [slice.platform, slice.minOS].compactMap { $0 }.joined(separator: " "),
                "key": downloadKey(slice),
            ]
        }
        let opens: [[String: Any]] = LaunchClaim.claims(in: record.infoDictionary).map { claim in
            ["what": Self.describe(claim.target), "rank": claim.rank.rawValue, "role": claim.role.rawValue]
        }
        let problems = record.errors.map { "error: " + $0 } + record.warnings.map { "warning: " + $0 }
        let info: [[String: Any]] = record.info.keys.sorted().map { key in
            ["key": key, "value": record.info[key]!.jsonValue.serialized(pretty: true)]
        }
        // Another host's files (icon, executables) are not on this one.
        let icon: Any = fleet == nil ? Self.iconLink(record, size: 128) as Any? ?? false : false
        let jsonLink = "/api" + Self.bundleLink(record, host: fleet == nil ? nil : web["host"])
        let values: [String: Any] = [
            "name": record.displayName(for: languages), "icon": icon, "facts": facts,
            "hasNames": !names.isEmpty, "names": names, "hasBinaries": !binaries.isEmpty, "binaries": binaries,
            "hasOpens": !opens.isEmpty, "opens": opens, "hasProblems": !problems.isEmpty, "problems": problems,
            "hasInfo": !info.isEmpty, "info": info, "jsonLink": jsonLink,
        ]
        return page("bundle", values, title: record.displayName(for: languages), request: web, languages: languages)
    }

    /// debuginfod's key for a slice's downloads (its UUID's hex digits, lower case, Docs/symbols.md);
    /// none for another host's slices, whose files are not served here.
    func downloadKey(_ slice: BinarySlice) -> Any {
        guard fleet == nil, let key = slice.uuid.flatMap(BinarySlice.uuidKey) else { return false }
        return key
    }

    /// A claim as a person reads it on a bundle page (`open-with --json` names it shorter: `HandlerJSON.claimName`).
    static func describe(_ target: LaunchClaim.Target) -> String {
        switch target {
        case let .type(identifier): "type \(identifier)"
        case let .fileExtension(ext): "extension .\(ext)"
        case let .mimeType(mime): "MIME type \(mime)"
        case .everything: "everything"
        case let .scheme(scheme): "scheme \(scheme):"
        }
    }
}
