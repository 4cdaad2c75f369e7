package import BundleModel
import Codecs
package import SystemCalls

/// The `bundles` row of a `BundleRecord`, declared once: each column says how a record fills it
/// and, unless it is derived from other columns, how it gives the value back. The insert, the
/// update, the select list, the binding and the decoding all come from this one list; the
/// migrations in `Schema` create the columns, and Docs/catalogue.md describes them.
package enum BundleRow {
    /// What a row is written from: the record and the moment it was written.
    package struct Source {
        let record: BundleRecord
        let info: InfoDictionary
        let scannedAt: Double
        /// Rule 29's claims packed (`ApplicationClaims`, the writer's), or nil.
        let launchClaims: [UInt8]?
    }

    package struct Column: Sendable {
        package let name: String
        let write: @Sendable (Source, any ColumnBinder, Int32) -> Void
        /// nil for columns derived from others (the Info keys with columns of their own, counts).
        let read: (@Sendable (any ColumnValues, Int, inout BundleRecord) -> Void)?

        init(_ name: String, write: @escaping @Sendable (Source, any ColumnBinder, Int32) -> Void,
             read: (@Sendable (any ColumnValues, Int, inout BundleRecord) -> Void)? = nil) {
            self.name = name
            self.write = write
            self.read = read
        }
    }

    /// `path` comes first: the update statement finds the row by it.
    package static let columns: [Column] = [
        Column("path", write: { $1.bind($2, $0.record.key.string) }, read: { $2.key = FilePath($0.text($1) ?? "") }),
        Column("name", write: { $1.bind($2, $0.record.name.string) }),
        Column("identifier", write: { $1.bind($2, $0.info.identifier) }),
        Column("kind", write: { $1.bind($2, $0.record.kind.rawValue) }, read: { $2.kind = BundleKind(rawValue: $0.text($1) ?? "") }),
        Column("is_package", write: { $1.bind($2, $0.record.isPackage) }),
        Column("package_reasons", write: { $1.bind($2, $0.record.packageReasons.names.joined(separator: ",")) },
               read: { $2.packageReasons = PackageReasons(names: ($0.text($1) ?? "").split(separator: ",").map(String.init)) }),
        Column("is_bundle", write: { $1.bind($2, $0.record.isBundle) }, read: { $2.isBundle = $0.flag($1) }),
        Column("layout", write: { $1.bind($2, $0.record.layout?.rawValue) },
               read: { $2.layout = $0.text($1).flatMap(LayoutKind.init(rawValue:)) }),
        Column("info_bundle_name", write: { $1.bind($2, $0.info.bundleName) }),
        Column("info_display_name", write: { $1.bind($2, $0.info.displayName) }),
        Column("version", write: { $1.bind($2, $0.info.version) }),
        Column("short_version", write: { $1.bind($2, $0.info.shortVersion) }),
        Column("numeric_version", write: { $1.bind($2, Int64($0.info.version.map(BundleVersion.packed) ?? 0)) }),
        Column("package_type", write: { $1.bind($2, $0.info.packageType) }),
        Column("signature", write: { $1.bind($2, $0.info.signature) }),
        Column("executable_name", write: { $1.bind($2, $0.info.executable) }),
        Column("executable", write: { $1.bind($2, $0.record.executable?.string) },
               read: { $2.executable = $0.text($1).map { FilePath($0) } }),
        Column("icon", write: { $1.bind($2, $0.record.icon?.string) }, read: { $2.icon = $0.text($1).map { FilePath($0) } }),
        Column("development_region", write: { $1.bind($2, $0.info.developmentRegion) }),
        Column("declared_localizations", write: { $1.bind($2, JSONArrays.encode($0.info.declaredLocalizations)) }),
        Column("localizations", write: { $1.bind($2, JSONArrays.encode($0.record.localizations)) },
               read: { $2.localizations = JSONArrays.decode($0.text($1)) }),
        Column("strings_tables", write: { $1.bind($2, JSONArrays.encode($0.record.infoPlistStrings.keys.sorted().map(\.string))) },
               read: { row, position, record in
                   // The tables' entries come from `localized_strings`; a file that could not be
                   // read has no entries but is still the one rule 12 picks.
                   for localization in JSONArrays.decode(row.text(position)) where record.infoPlistStrings[FileName(localization)] == nil {
                       record.infoPlistStrings[FileName(localization)] = [:]
                   }
               }),
        Column("info_file", write: { $1.bind($2, $0.record.infoFile?.string) }, read: { $2.infoFile = $0.text($1).map { FilePath($0) } }),
        Column("info_format", write: { $1.bind($2, $0.record.infoFormat?.rawValue) },
               read: { $2.infoFormat = $0.text($1).flatMap(PlistFormat.init(rawValue:)) }),
        // The raw dictionary as JSON for sqlite3's json_extract, and the record's own when JSON
        // can carry it exactly (most Info files: strings, numbers, booleans, arrays, dictionaries).
        Column("info", write: { $1.bind($2, PlistValue.dictionary($0.record.info).jsonText) },
               read: { row, position, record in
                   guard let json = row.text(position), let value = try? PlistValue(jsonText: json) else { return }
                   record.info = value.dictionary ?? [:]
               }),
        // Otherwise (dates, data, UIDs) the raw dictionary whole as a binary property list, so
        // that a record read back is the record written. Written only then: it costs a fifth of
        // the index's writes.
        Column("info_plist",
               write: { source, statement, index in
                   let info = PlistValue.dictionary(source.record.info)
                   if info.isExactInJSON { statement.bind(index, nil as String?) } else { statement.bind(index, bytes: PropertyListWriter.binary(info)) }
               },
               read: { row, position, record in
                   guard let data = row.bytes(position),
                         case let .dictionary(info)? = try? PropertyListReader.read(data).value
                   else { return }
                   record.info = info
               }),
        Column("resources_directory", write: { $1.bind($2, $0.record.resourcesDirectory?.string) },
               read: { $2.resourcesDirectory = $0.text($1).map { FilePath($0) } }),
        Column("version_resources_directory", write: { $1.bind($2, $0.record.versionResourcesDirectory?.string) },
               read: { $2.versionResourcesDirectory = $0.text($1).map { FilePath($0) } }),
        Column("finder_flags", write: { $1.bind($2, $0.record.finderFlags.map { Int64($0) }) },
               read: { $2.finderFlags = $0.integer($1).map { UInt16(truncatingIfNeeded: $0) } }),
        Column("finder_info_source", write: { $1.bind($2, $0.record.finderInfoSource?.rawValue) },
               read: { $2.finderInfoSource = $0.text($1).flatMap(FinderInfoSource.init(rawValue:)) }),
        Column("document_types",
               write: { $1.bind($2, $0.record.documentTypes.isEmpty ? nil : DocumentTypeCoding.encode($0.record.documentTypes, bundle: $0.record.key)) },
               // `path` is read first: the icons are relative to it.
               read: { row, position, record in
                   record.documentTypes = row.text(position).map { DocumentTypeCoding.decode($0, bundle: record.key) } ?? []
               }),
        Column("type_declarations",
               write: { $1.bind($2, $0.record.typeDeclarations.isEmpty ? nil : TypeDeclarationCoding.encode($0.record.typeDeclarations)) },
               read: { $2.typeDeclarations = $0.text($1).map(TypeDeclarationCoding.decode) ?? [] }),
        Column("backup", write: { $1.bind($2, BackupCoding.encode($0.record.backup)) }, read: { $2.backup = BackupCoding.decode($0.text($1)) }),
        Column("archive", write: { $1.bind($2, $0.record.archive?.string) }, read: { $2.archive = $0.text($1).map { FilePath($0) } }),
        Column("member", write: { $1.bind($2, $0.record.member?.string) }, read: { $2.member = $0.text($1).map { FilePath($0) } }),
        Column("installs_to", write: { $1.bind($2, $0.record.installation?.installsTo.string) },
               read: { row, position, record in
                   record.installation = row.text(position).map { BundleRecord.Installation(component: record.installation?.component, installsTo: FilePath($0)) }
               }),
        Column("component", write: { $1.bind($2, $0.record.installation?.component) },
               // `installs_to` is read first: a component without an install path is none.
               read: { $2.installation?.component = $0.text($1) }),
        // Rule 29's claims of an installed application, packed (`ApplicationClaims`); written, never read back into a record.
        Column("launch_claims", write: { source, statement, index in
            if let claims = source.launchClaims { statement.bind(index, bytes: claims) } else { statement.bind(index, nil as Int64?) }
        }),
        Column("stamps", write: { $1.bind($2, StampCoding.encode($0.record.stamps)) }, read: { $2.stamps = StampCoding.decode($0.text($1)) }),
        Column("error_count", write: { $1.bind($2, Int64($0.record.errors.count)) }),
        Column("warning_count", write: { $1.bind($2, Int64($0.record.warnings.count)) }),
        Column("scanned_at", write: { $1.bind($2, $0.scannedAt) }),
    ]

    package static let names = columns.map(\.name)

    /// Inserts a new row, returning its id; returns no row when the path is already there.
    package static let insertSQL = """
        INSERT INTO bundles (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))
        ON CONFLICT(path) DO NOTHING RETURNING id
        """

    /// Updates the row at the path bound first, returning its id.
    package static let updateSQL: String = {
        let assignments = names.enumerated().dropFirst().map { "\($1) = ?\($0 + 1)" }.joined(separator: ", ")
        return "UPDATE bundles SET \(assignments) WHERE path = ?1 RETURNING id"
    }()

    /// What queries select, in this order: `id`, then every column.
    package static let selectList = (["id"] + names).joined(separator: ", ")

    /// Binds a record to the insert or update statement.
    package static func bind(_ record: BundleRecord, scannedAt: Double, launchClaims: [UInt8]?, to statement: some ColumnBinder) {
        let source = Source(record: record, info: record.infoDictionary, scannedAt: scannedAt, launchClaims: launchClaims)
        for (index, column) in columns.enumerated() { column.write(source, statement, Int32(index + 1)) }
    }

    /// A record of some columns only, read from a row selecting `id` then those (a migration's
    /// view of the table as it was: later migrations' columns are not there yet).
    package static func record(from row: some ColumnValues, columns selected: [String]) -> BundleRecord {
        var record = BundleRecord(key: .here)
        for (index, name) in selected.enumerated() { columns.first { $0.name == name }?.read?(row, index + 1, &record) }
        return record
    }

    /// The record of a row of `selectList`, its child rows' parts not yet added (`complete`).
    package static func record(from row: any ColumnValues) -> BundleRecord {
        var record = BundleRecord(key: .here)
        for (index, column) in columns.enumerated() { column.read?(row, index + 1, &record) }
        return record
    }

    /// Adds what the child tables hold: the strings tables' entries (over the empty tables
    /// `strings_tables` lists), the problems, the binaries.
    package static func complete(_ record: inout BundleRecord, strings: [FileName: [String: String]], problems: [(severity: String, message: String)],
                         binaries: [BinarySlice]) {
        for (localization, table) in strings { record.infoPlistStrings[localization] = table }
        record.errors = problems.filter { $0.severity == "error" }.map(\.message)
        record.warnings = problems.filter { $0.severity == "warning" }.map(\.message)
        record.binaries = binaries
    }
}

/// JSON arrays of strings, as the catalogue keeps lists for `sqlite3` users.
package enum JSONArrays {
    package static func encode(_ values: [String]) -> String {
        var writer = JSONWriter(capacity: 16 * values.count + 2)
        writer.strings(values)
        return writer.text
    }

    package static func decode(_ json: String?) -> [String] {
        guard let json, let value = try? JSONValue.parse(json) else { return [] }
        return value.arrayValue?.compactMap(\.stringValue) ?? []
    }
}
