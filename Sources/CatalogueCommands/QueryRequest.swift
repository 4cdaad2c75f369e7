import BundleModel
import CatalogueReading
import Codecs
import SystemCalls

/// `bundlefs query`'s question and its answer, apart from how the command line was read.
package struct QueryRequest: Equatable, Sendable {
    package var identifier: String?
    var kind: String?
    var under: String?
    var uuid: String?
    var arch: String?
    var inArchives = false
    var noArchives = false
    var plugInType: String?
    var extensionPoint: String?
    var runsOn: String?
    package var json = false
    var database: String?
    var host: String?
    var choice = CatalogueChoice()

    package init() {}

    package init(identifier: String?, kind: String?, under: String?, uuid: String?, arch: String?, inArchives: Bool, noArchives: Bool, plugInType: String?,
         extensionPoint: String?, runsOn: String?, json: Bool, database: String?, host: String?, choice: CatalogueChoice) {
        (self.identifier, self.kind, self.under, self.uuid, self.arch) = (identifier, kind, under, uuid, arch)
        (self.inArchives, self.noArchives, self.plugInType, self.extensionPoint, self.runsOn) = (inArchives, noArchives, plugInType, extensionPoint, runsOn)
        (self.json, self.database, self.host, self.choice) = (json, database, host, choice)
    }

    /// - Parameter published: what answers `--database`; without it, `--database` is an error.
    package func run(asking published: (any PublishedBundles)? = nil) throws {
        let languages = try choice.languages()
        let underPath = under.map { path in Self.canonicalDirectory(absolutePath(path)) }
        guard !(inArchives && noArchives) else { throw UserError("--in-archives and --no-archives exclude each other") }
        let uuidKey = try uuid.map { text in
            guard let key = BinarySlice.uuidKey(text) else { throw UserError("--uuid \(text): not a UUID or build-id (hex digits, hyphens allowed)") }
            return key
        }
        var query = BundleQuery(identifier: identifier, kind: kind, under: underPath, uuidKey: uuidKey, arch: arch,
                                inArchives: inArchives ? true : noArchives ? false : nil)
        query.plugInType = try plugInType.map { text in
            guard let key = PlugInProvision.typeKey(text) else { throw UserError("--plugin-type \(text): not a UUID") }
            return key
        }
        query.extensionPoint = extensionPoint
        query.runsOn = try runsOn.map { text in
            guard let target = RunTarget(parsing: text) else {
                throw UserError("--runs-on \(text): not PLATFORM[:VERSION][/ARCH] (e.g. macos:15.0/arm64)")
            }
            return target
        }
        // Local records have no host; PostgreSQL's each carry theirs.
        let bundles: [(host: String?, record: BundleRecord)]
        var archiveErrors: [FilePath: String] = [:]
        if let database {
            guard let published else { throw UserError("--database: this bundlefs cannot reach PostgreSQL") }
            // PostgreSQL narrows by what it indexes; rules 31 and 32 are applied to the records here.
            bundles = try published.bundles(matching: query, database: database, host: host).filter { Self.admits(query, $0.record) }
        } else {
            let catalogue = try choice.lookup()
            bundles = try catalogue.bundles(matching: query).map { (nil, $0.record) }
            if json { archiveErrors = try catalogue.archiveErrors(of: Set(bundles.compactMap(\.record.archive))) }
        }
        if json {
            print(JSONValue.array(bundles.map { host, record in
                let object = ContractJSON.object(for: record, languages: languages, archiveError: record.archive.flatMap { archiveErrors[$0] })
                guard let host, case let .object(members) = object else { return object }
                return .object(members + [("host", .string(host))])
            }).serialized(pretty: true))
            // Programs still get valid JSON (`[]`); the status says there was no match.
            guard !bundles.isEmpty else { throw NegativeAnswer(description: noMatch) }
            return
        }
        guard !bundles.isEmpty else { throw NegativeAnswer(description: noMatch) }
        var table = TextTable(header: (database == nil ? [] : ["HOST"]) + ["IDENTIFIER", "KIND", "VERSION", "NAME", "PATH"])
        for (host, record) in bundles {
            table.rows.append((host.map { [TerminalText.safe($0)] } ?? []) + [
                TerminalText.safe(record.identifier ?? "-"), TerminalText.safe(record.kind.rawValue),
                TerminalText.safe(record.shortVersion ?? record.version ?? "-"),
                DisplayNames.sanitized(record.displayName(for: languages), realName: record.name.string).terminalSafe,
                TerminalText.safe(record.key.string) + (record.errors.isEmpty ? "" : "  (\(record.errors.count) error\(record.errors.count == 1 ? "" : "s"))"),
            ])
        }
        print(table.rendered())
    }

    /// Exit 1 and this, as `open-with` and `types` do when nothing answers: the question as asked.
    var noMatch: String {
        var asked: [String] = identifier.map { [$0] } ?? []
        let options: [(String, String?)] = [("--kind", kind), ("--under", under), ("--uuid", uuid), ("--arch", arch), ("--plugin-type", plugInType),
                                            ("--extension-point", extensionPoint), ("--runs-on", runsOn), ("--host", host)]
        asked += options.compactMap { option, value in value.map { "\(option) \($0)" } }
        if inArchives { asked.append("--in-archives") }
        if noArchives { asked.append("--no-archives") }
        return "no bundle matches" + (asked.isEmpty ? "" : " " + TerminalText.safe(asked.joined(separator: " ")))
    }

    /// The directory a path names with its links resolved, as an index records its root; the
    /// path as given when it names no directory.
    static func canonicalDirectory(_ path: FilePath) -> FilePath {
        guard let resolved = try? path.resolved(), (try? FileStatus.of(resolved))?.type == .directory else { return path }
        return resolved
    }

    /// Rules 31 and 32 on a record, and folders named like bundles only when asked for by kind
    /// (what the local catalogue's query applies in SQL and Swift).
    static func admits(_ query: BundleQuery, _ record: BundleRecord) -> Bool {
        if query.kind == nil && record.kind == .folder { return false }
        if let type = query.plugInType, !PlugInProvision.plugInTypes(record.infoDictionary).contains(type) { return false }
        if let point = query.extensionPoint, PlugInProvision.extensionPoint(record.infoDictionary) != point { return false }
        return query.runsOn?.admits(record) ?? true
    }
}

extension String {
    package var terminalSafe: String { TerminalText.safe(self) }
}
