import BundleModel
import CatalogueReading
import Codecs
import SymbolServer
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// One application that needs Rosetta on an Apple silicon Mac.
struct RosettaRow {
    var record: BundleRecord
    var name: String
    var archs: [String]
    var host: String

    /// Its executable has a slice an arm64 Mac runs natively (`RunTarget.nativeArchitectures`).
    var isNativeOnArm64: Bool { archs.contains { RunTarget.nativeArchitectures("arm64").contains($0) } }
    /// Mac code, none of it native on an arm64 Mac: what Rosetta translates.
    var needsRosetta: Bool { !archs.isEmpty && !isNativeOnArm64 }

    var json: JSONValue {
        .object([("path", .string(record.key.string)), ("identifier", .optional(record.identifier)), ("displayName", .string(name)),
                 ("version", .optional(record.shortVersion ?? record.version)), ("architectures", .strings(archs)), ("host", .string(host))])
    }
}

struct BackupRow {
    var record: BundleRecord
    var age: Double?

    var json: JSONValue {
        guard case let .object(members)? = record.backup?.json() else { return .null }
        return .object([("path", .string(record.key.string))] + members + [("ageDays", age.map { .integer(Int64($0 / 86_400)) } ?? .null)])
    }
}

extension WebInventory {
    /// Applications whose executable is Mach-O with no arm64 or arm64e slice (an arm64 Mac's own,
    /// `RunTarget.nativeArchitectures`): what `query --kind application` finds and
    /// `--runs-on macos/arm64` does not, for Mac code only (a GNUstep ELF application is not a
    /// Mac's to translate).
    func rosettaRows(languages: [LanguageTag]) throws -> [RosettaRow] {
        try applicationArchitectures(languages: languages).filter(\.needsRosetta)
    }

    /// Every Mac application with its executable's architectures (empty when it has no Mach-O executable).
    func applicationArchitectures(languages: [LanguageTag]) throws -> [RosettaRow] {
        let applications = try fleet?.bundles(matching: BundleQuery(kind: "application"))
            ?? catalogue.bundles(matching: BundleQuery(kind: "application")).map { (host, $0.record) }
        return applications.map { host, record in
            let executable = record.executable?.relative(to: record.key)
            let archs = record.binaries.filter { $0.file == executable && $0.format == .machO }.map(\.arch)
            return RosettaRow(record: record, name: record.displayName(for: languages), archs: archs, host: host)
        }
    }

    func appleSiliconPage(_ web: WebRequest, languages: [LanguageTag]) throws -> PageAnswer {
        let all = try applicationArchitectures(languages: languages)
        let native = all.filter(\.isNativeOnArm64).count
        var rows = all.filter(\.needsRosetta)
        let sort = web["sort"] ?? "name"
        let key: (RosettaRow) -> String = switch sort {
        case "identifier": { $0.record.identifier ?? "" }
        case "version": { $0.record.shortVersion ?? $0.record.version ?? "" }
        case "path": { $0.record.key.string }
        default: { $0.name }
        }
        rows.sort { key($0).localizedStandardLess(key($1)) }
        let chart = BarChart.svg([("Native arm64", native), ("Intel only: Rosetta", rows.count), ("No Mac code", all.count - native - rows.count)])
        // With `--database`, each host's counts: which Macs' software is furthest from Apple silicon.
        let hosts: [[String: Any]] = fleet == nil ? [] : Dictionary(grouping: all, by: \.host).sorted { $0.key < $1.key }.map { host, applications in
            let native = applications.filter(\.isNativeOnArm64).count
            let intel = applications.filter(\.needsRosetta).count
            return ["host": host, "native": native, "intel": intel, "other": applications.count - native - intel]
        }
        let values: [String: Any] = [
            "chart": chart, "hasHosts": !hosts.isEmpty, "hosts": hosts,
            "columns": [("name", "Application"), ("identifier", "Identifier"), ("version", "Version"), ("archs", "Architectures"), ("host", "Host"),
                        ("path", "Path")].map { ["label": $0.1, "link": "/reports/apple-silicon?sort=\($0.0)"] },
            "rows": rows.map { row -> [String: Any] in
                ["link": Self.bundleLink(row.record, host: fleet == nil ? nil : row.host), "name": row.name, "identifier": row.record.identifier ?? "",
                 "version": row.record.shortVersion ?? row.record.version ?? "", "archs": row.archs.joined(separator: ", "), "host": row.host,
                 "path": row.record.key.string]
            },
        ]
        return page("apple-silicon", values, title: "Apple silicon", request: web, languages: languages)
    }

    /// Backups, the one whose last snapshot is oldest first (none at all first of all).
    func backupRows(languages: [LanguageTag]) throws -> [BackupRow] {
        let now = Double(time(nil))
        return try catalogue.bundles(matching: BundleQuery(kind: "backup")).map { bundle in
            BackupRow(record: bundle.record, age: bundle.record.backup?.lastSnapshot.map { now - $0 })
        }.sorted { ($0.age ?? .infinity) > ($1.age ?? .infinity) }
    }

    func backupsPage(_ web: WebRequest, languages: [LanguageTag]) throws -> PageAnswer {
        let rows: [[String: Any]] = try backupRows(languages: languages).map { row in
            let backup = row.record.backup
            return ["link": Self.bundleLink(row.record), "model": backup?.model ?? row.record.displayName(for: languages), "hostUUID": backup?.hostUUID ?? "",
                    "last": backup?.lastSnapshot.map(PlistDate.formatISO8601) ?? "never", "age": row.age.map { "\(Int($0 / 86_400)) days" } ?? "",
                    "snapshots": backup?.snapshots ?? 0, "size": backup.map { "\($0.sizeOnDisk) bytes" } ?? "", "path": row.record.key.string]
        }
        return page("backups", ["rows": rows], title: "Backups", request: web, languages: languages)
    }

    func bundlesWithErrors() throws -> [CataloguedBundle] {
        try catalogue.bundles(matching: BundleQuery()).filter { !$0.record.errors.isEmpty }
    }

    func errorsPage(_ web: WebRequest, languages: [LanguageTag]) throws -> PageAnswer {
        let rows: [[String: Any]] = try bundlesWithErrors().map { bundle in
            ["link": Self.bundleLink(bundle.record), "name": bundle.record.displayName(for: languages), "identifier": bundle.record.identifier ?? "",
             "errors": bundle.record.errors, "path": bundle.record.key.string]
        }
        return page("errors", ["rows": rows], title: "Errors", request: web, languages: languages)
    }
}

extension String {
    /// Case-insensitive, numbers by value: the order a reader expects in a list of names.
    func localizedStandardLess(_ other: String) -> Bool {
        let a = lowercased(), b = other.lowercased()
        return a != b ? a < b : self < other
    }
}
