import BundleModel
import GRDB

/// How a `BundleRecord` is spread over the `bundles` row and its child tables.
enum RecordColumns {
    static let bundleColumns = [
        "path", "name", "identifier", "kind", "is_package", "package_reasons", "is_bundle", "layout",
        "info_bundle_name", "info_display_name", "version", "short_version", "numeric_version", "package_type",
        "signature", "executable_name", "executable", "development_region", "declared_localizations",
        "localizations", "strings_tables", "info_file", "info_format", "info", "resources_directory",
        "finder_flags", "finder_info_source", "document_types", "type_declarations", "stamps", "error_count",
        "warning_count", "scanned_at",
    ]

    /// Inserts a new bundle row, returning its id; returns no row when the path is already there.
    static let insertSQL: String = {
        let columns = bundleColumns.joined(separator: ", ")
        let placeholders = bundleColumns.map { _ in "?" }.joined(separator: ", ")
        return "INSERT INTO bundles (\(columns)) VALUES (\(placeholders)) ON CONFLICT(path) DO NOTHING RETURNING id"
    }()

    /// Updates an existing bundle row by path (the first column), returning its id.
    static let updateSQL: String = {
        let assignments = bundleColumns.enumerated().dropFirst().map { "\($1) = ?\($0 + 1)" }.joined(separator: ", ")
        return "UPDATE bundles SET \(assignments) WHERE path = ?1 RETURNING id"
    }()

    /// Binds a record's values to the upsert statement, in `bundleColumns` order.
    static func bind(_ record: BundleRecord, scannedAt: Double, to statement: RawStatement) {
        let info = record.infoDictionary
        func strings(_ values: [String]) -> String {
            var writer = ByteWriter(capacity: 16 * values.count + 2)
            writer.append("[")
            for (index, value) in values.enumerated() {
                if index > 0 { writer.append(",") }
                writer.appendJSONString(value)
            }
            writer.append("]")
            return writer.text
        }
        var index: Int32 = 0
        func next() -> Int32 { index += 1; return index }
        statement.bind(next(), record.path)
        statement.bind(next(), record.name)
        statement.bind(next(), info.identifier)
        statement.bind(next(), record.kind)
        statement.bind(next(), record.isPackage)
        statement.bind(next(), record.packageReasons.names.joined(separator: ","))
        statement.bind(next(), record.isBundle)
        statement.bind(next(), record.layout?.rawValue)
        statement.bind(next(), info.bundleName)
        statement.bind(next(), info.displayName)
        let version = info.version
        statement.bind(next(), version)
        statement.bind(next(), info.shortVersion)
        statement.bind(next(), Int64(version.map(BundleVersion.packed) ?? 0))
        statement.bind(next(), info.packageType)
        statement.bind(next(), info.signature)
        statement.bind(next(), info.executable)
        statement.bind(next(), record.executable)
        statement.bind(next(), info.developmentRegion)
        statement.bind(next(), strings(info.declaredLocalizations))
        statement.bind(next(), strings(record.localizations))
        statement.bind(next(), strings(record.infoPlistStrings.keys.sorted()))
        statement.bind(next(), record.infoFile)
        statement.bind(next(), record.infoFormat?.rawValue)
        statement.bind(next(), PlistValue.dictionary(record.info).jsonText)
        statement.bind(next(), record.resourcesDirectory)
        statement.bind(next(), record.finderFlags.map { Int64($0) })
        statement.bind(next(), record.finderInfoSource?.rawValue)
        statement.bind(next(), record.documentTypes.isEmpty ? nil : DocumentTypeCoding.encode(record.documentTypes))
        statement.bind(next(), record.typeDeclarations.isEmpty ? nil : TypeDeclarationCoding.encode(record.typeDeclarations))
        statement.bind(next(), StampCoding.encode(record.stamps))
        statement.bind(next(), Int64(record.errors.count))
        statement.bind(next(), Int64(record.warnings.count))
        statement.bind(next(), scannedAt)
        assert(Int(index) == bundleColumns.count)
    }

    /// The columns queries select, in this order: `id`, then `bundleColumns`.
    static let selectList = (["id"] + bundleColumns).joined(separator: ", ")

    /// A column's position in `selectList`; rows are read by position, which GRDB does without
    /// looking names up.
    static func position(_ name: String) -> Int {
        guard let index = bundleColumns.firstIndex(of: name) else { preconditionFailure("no column \(name)") }
        return index + 1
    }

    enum At {
        static let path = position("path"), kind = position("kind"), packageReasons = position("package_reasons")
        static let isBundle = position("is_bundle"), layout = position("layout"), infoFile = position("info_file")
        static let infoFormat = position("info_format"), resources = position("resources_directory")
        static let localizations = position("localizations"), declared = position("declared_localizations")
        static let stringsTables = position("strings_tables"), executable = position("executable")
        static let finderFlags = position("finder_flags"), finderSource = position("finder_info_source")
        static let documentTypes = position("document_types"), typeDeclarations = position("type_declarations")
        static let info = position("info")
        /// Info keys that have their own column.
        static let exposed: [(String, Int)] = [
            ("CFBundleIdentifier", position("identifier")), ("CFBundleName", position("info_bundle_name")),
            ("CFBundleDisplayName", position("info_display_name")), ("CFBundleVersion", position("version")),
            ("CFBundleShortVersionString", position("short_version")), ("CFBundlePackageType", position("package_type")),
            ("CFBundleSignature", position("signature")), ("CFBundleExecutable", position("executable_name")),
            ("CFBundleDevelopmentRegion", position("development_region")),
        ]
    }

    /// Rebuilds a record from a row of `selectList`. `info` holds the exposed keys only; the raw
    /// dictionary is in the `info` column as JSON. Stamps are the indexer's business and are not read
    /// back here.
    static func record(from row: Row, strings: [String: [String: String]], problems: [(String, String)]) -> BundleRecord {
        var record = BundleRecord(path: row[At.path])
        record.packageReasons = PackageReasons(names: (row[At.packageReasons] as String).split(separator: ",").map(String.init))
        record.isBundle = row[At.isBundle]
        record.layout = (row[At.layout] as String?).flatMap(LayoutKind.init(rawValue:))
        record.kind = row[At.kind]
        record.infoFile = row[At.infoFile]
        record.infoFormat = (row[At.infoFormat] as String?).flatMap(PlistFormat.init(rawValue:))
        var info: [String: PlistValue] = [:]
        for (key, column) in At.exposed {
            if let value = row[column] as String? { info[key] = .string(value) }
        }
        let declared = decodeStrings(row[At.declared])
        if !declared.isEmpty { info["CFBundleLocalizations"] = .array(declared.map(PlistValue.string)) }
        record.info = info
        record.resourcesDirectory = row[At.resources]
        record.localizations = decodeStrings(row[At.localizations])
        var tables = strings
        for localization in decodeStrings(row[At.stringsTables]) where tables[localization] == nil { tables[localization] = [:] }
        record.infoPlistStrings = tables
        record.executable = row[At.executable]
        record.finderFlags = (row[At.finderFlags] as Int64?).map { UInt16(truncatingIfNeeded: $0) }
        record.finderInfoSource = (row[At.finderSource] as String?).flatMap(FinderInfoSource.init(rawValue:))
        record.documentTypes = (row[At.documentTypes] as String?).map(DocumentTypeCoding.decode) ?? []
        record.typeDeclarations = (row[At.typeDeclarations] as String?).map(TypeDeclarationCoding.decode) ?? []
        record.errors = problems.filter { $0.0 == "error" }.map(\.1)
        record.warnings = problems.filter { $0.0 == "warning" }.map(\.1)
        return record
    }

    static func decodeStrings(_ json: String?) -> [String] {
        guard let json, let value = try? JSONValue.parse(json) else { return [] }
        return value.arrayValue?.compactMap(\.stringValue) ?? []
    }
}

/// Stamps as lines of `ctime size inode path`, the path last with `\` and newlines escaped:
/// compact, and fast to read back for every bundle on a re-index.
enum StampCoding {
    static func encode(_ stamps: [FileStamp]) -> String {
        var writer = ByteWriter(capacity: 64 * stamps.count)
        for (index, stamp) in stamps.enumerated() {
            if index > 0 { writer.append(UInt8(ascii: "\n")) }
            writer.append(stamp.changeTime)
            writer.append(UInt8(ascii: " "))
            writer.append(stamp.size)
            writer.append(UInt8(ascii: " "))
            writer.append(stamp.inode)
            writer.append(UInt8(ascii: " "))
            writer.append(raw: escape(stamp.path))
        }
        return writer.text
    }

    static func encode(_ stamp: FileStamp?) -> String? { stamp.map { encode([$0]) } }

    static func decode(_ text: String?) -> [FileStamp] {
        guard let text, !text.isEmpty else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count == 4, let changeTime = Int64(parts[0]), let size = Int64(parts[1]), let inode = UInt64(parts[2]) else { return nil }
            return FileStamp(path: unescape(parts[3]), changeTime: changeTime, size: size, inode: inode)
        }
    }

    static func escape(_ path: String) -> String {
        guard path.contains(where: { $0 == "\\" || $0 == "\n" }) else { return path }
        return path.replacingAll("\\", with: "\\\\").replacingAll("\n", with: "\\n")
    }

    static func unescape(_ text: Substring) -> String {
        guard text.contains("\\") else { return String(text) }
        var out = ""
        var escaping = false
        for character in text {
            if escaping { out.append(character == "n" ? "\n" : character); escaping = false } else if character == "\\" { escaping = true } else { out.append(character) }
        }
        return out
    }
}

enum DocumentTypeCoding {
    static func encode(_ types: [DocumentType]) -> String {
        JSONValue.array(types.map { type in
            .object([
                ("name", .optional(type.name)), ("role", .optional(type.role)), ("extensions", .strings(type.extensions)),
                ("contentTypes", .strings(type.contentTypes)), ("isPackage", .bool(type.isPackage)),
            ])
        }).serialized()
    }

    static func decode(_ json: String) -> [DocumentType] {
        guard let value = try? JSONValue.parse(json), let entries = value.arrayValue else { return [] }
        return entries.map { entry in
            DocumentType(
                name: entry["name"]?.stringValue, role: entry["role"]?.stringValue,
                extensions: entry["extensions"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                contentTypes: entry["contentTypes"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                isPackage: entry["isPackage"] == .bool(true))
        }
    }
}

enum TypeDeclarationCoding {
    static func encode(_ declarations: [TypeDeclaration]) -> String {
        JSONValue.array(declarations.map { declaration in
            .object([
                ("identifier", .string(declaration.identifier)), ("conformsTo", .strings(declaration.conformsTo)),
                ("extensions", .strings(declaration.extensions)), ("exported", .bool(declaration.exported)),
            ])
        }).serialized()
    }

    static func decode(_ json: String) -> [TypeDeclaration] {
        guard let value = try? JSONValue.parse(json), let entries = value.arrayValue else { return [] }
        return entries.compactMap { entry in
            guard let identifier = entry["identifier"]?.stringValue else { return nil }
            return TypeDeclaration(
                identifier: identifier, conformsTo: entry["conformsTo"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                extensions: entry["extensions"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                exported: entry["exported"] == .bool(true))
        }
    }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for character in self { if character == target { out += replacement } else { out.append(character) } }
        return out
    }
}
