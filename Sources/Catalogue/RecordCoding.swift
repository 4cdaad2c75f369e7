public import BundleModel
import Codecs
import SystemCalls

/// A whole `BundleRecord` as one binary property list: what PostgreSQL keeps per bundle, so that
/// `query --database` prints from exactly the record `query` prints from (display names for the
/// asker's languages, JSON, errors). Strings carry any text, NUL included; lists the catalogue
/// keeps as JSON or stamp lines reuse those codings.
public enum RecordCoding {
    /// Raised for bytes that are not a record this version wrote.
    public struct DecodingError: Error, CustomStringConvertible {
        public let description: String
    }

    static let version: Int64 = 1

    public static func encode(_ record: BundleRecord) -> [UInt8] {
        var fields: [String: PlistValue] = [
            "v": .integer(version),
            "path": .string(record.key.string),
            "reasons": .string(record.packageReasons.names.joined(separator: ",")),
            "bundle": .bool(record.isBundle),
            "kind": .string(record.kind.rawValue),
            "info": .dictionary(record.info),
            "localizations": .array(record.localizations.map(PlistValue.string)),
            // Pairs, not a dictionary: lproj names are bytes, and a String-keyed dictionary would
            // make NFC and NFD twins one key.
            "strings": .array(record.infoPlistStrings.sorted { $0.key < $1.key }.map { name, table in
                .array([.string(name.string), .dictionary(table.mapValues(PlistValue.string))])
            }),
            "binaries": .array(record.binaries.map(encode)),
            "documentTypes": .string(DocumentTypeCoding.encode(record.documentTypes, bundle: record.key)),
            "typeDeclarations": .string(TypeDeclarationCoding.encode(record.typeDeclarations)),
            "errors": .array(record.errors.map(PlistValue.string)),
            "warnings": .array(record.warnings.map(PlistValue.string)),
            "stamps": .string(StampCoding.encode(record.stamps)),
        ]
        fields["backup"] = BackupCoding.encode(record.backup).map(PlistValue.string)
        fields["layout"] = record.layout.map { .string($0.rawValue) }
        fields["infoFile"] = record.infoFile.map { .string($0.string) }
        fields["infoFormat"] = record.infoFormat.map { .string($0.rawValue) }
        fields["resources"] = record.resourcesDirectory.map { .string($0.string) }
        fields["versionResources"] = record.versionResourcesDirectory.map { .string($0.string) }
        fields["executable"] = record.executable.map { .string($0.string) }
        fields["icon"] = record.icon.map { .string($0.string) }
        fields["finderFlags"] = record.finderFlags.map { .integer(Int64($0)) }
        fields["finderInfoSource"] = record.finderInfoSource.map { .string($0.rawValue) }
        fields["archive"] = record.archive.map { .string($0.string) }
        fields["member"] = record.member.map { .string($0.string) }
        fields["installsTo"] = record.installation.map { .string($0.installsTo.string) }
        fields["component"] = record.installation?.component.map { .string($0) }
        return PropertyListWriter.binary(.dictionary(fields))
    }

    public static func decode(_ bytes: [UInt8]) throws -> BundleRecord {
        guard let document = try? PropertyListReader.read(bytes), document.format == .binary, case let .dictionary(fields) = document.value else {
            throw DecodingError(description: "not a bundle record (a binary property list)")
        }
        guard fields["v"] == .integer(version) else { throw DecodingError(description: "a bundle record of another version") }
        guard let recordPath = fields["path"]?.string, let kind = fields["kind"]?.string else {
            throw DecodingError(description: "a bundle record without its path or kind")
        }
        func text(_ key: String) -> String? { fields[key]?.string }
        func path(_ key: String) -> FilePath? { text(key).map { FilePath($0) } }
        func strings(_ key: String) -> [String] { fields[key]?.array?.compactMap(\.string) ?? [] }
        var record = BundleRecord(key: FilePath(recordPath))
        record.kind = BundleKind(rawValue: kind)
        record.packageReasons = PackageReasons(names: (text("reasons") ?? "").split(separator: ",").map(String.init))
        record.isBundle = fields["bundle"] == .bool(true)
        record.layout = text("layout").flatMap(LayoutKind.init(rawValue:))
        record.infoFile = path("infoFile")
        record.infoFormat = text("infoFormat").flatMap(PlistFormat.init(rawValue:))
        record.info = fields["info"]?.dictionary ?? [:]
        record.resourcesDirectory = path("resources")
        record.versionResourcesDirectory = path("versionResources")
        record.localizations = strings("localizations")
        for pair in fields["strings"]?.array ?? [] {
            guard let parts = pair.array, parts.count == 2, let name = parts[0].string, let table = parts[1].dictionary else { continue }
            record.infoPlistStrings[FileName(name)] = table.compactMapValues(\.string)
        }
        record.executable = path("executable")
        record.binaries = fields["binaries"]?.array?.compactMap(decodeSlice) ?? []
        record.icon = path("icon")
        record.documentTypes = DocumentTypeCoding.decode(text("documentTypes") ?? "[]", bundle: record.key)
        record.typeDeclarations = TypeDeclarationCoding.decode(text("typeDeclarations") ?? "[]")
        record.backup = BackupCoding.decode(text("backup"))
        if case let .integer(flags)? = fields["finderFlags"] { record.finderFlags = UInt16(truncatingIfNeeded: flags) }
        record.finderInfoSource = text("finderInfoSource").flatMap(FinderInfoSource.init(rawValue:))
        record.errors = strings("errors")
        record.warnings = strings("warnings")
        record.archive = path("archive")
        record.member = path("member")
        record.installation = path("installsTo").map { BundleRecord.Installation(component: text("component"), installsTo: $0) }
        record.stamps = StampCoding.decode(text("stamps"))
        return record
    }

    private static func encode(_ slice: BinarySlice) -> PlistValue {
        var fields: [String: PlistValue] = [
            "file": .string(slice.file.string), "format": .string(slice.format.rawValue), "arch": .string(slice.arch),
            "fileType": .string(slice.fileType), "signature": .string(slice.signature.rawValue),
        ]
        fields["uuid"] = slice.uuid.map(PlistValue.string)
        fields["platform"] = slice.platform.map(PlistValue.string)
        fields["minOS"] = slice.minOS.map(PlistValue.string)
        fields["sdk"] = slice.sdk.map(PlistValue.string)
        fields["signingIdentifier"] = slice.signingIdentifier.map(PlistValue.string)
        fields["teamIdentifier"] = slice.teamIdentifier.map(PlistValue.string)
        // The file as this host read it: the record is whole, though another host serves nothing by it.
        fields["disk"] = slice.onDisk.map { disk in
            .dictionary(["path": .string(disk.path.string), "device": .integer(Int64(bitPattern: disk.device)),
                         "inode": .integer(Int64(bitPattern: disk.inode)), "size": .integer(disk.size), "time": .integer(disk.modificationTime)])
        }
        return .dictionary(fields)
    }

    private static func decodeSlice(_ value: PlistValue) -> BinarySlice? {
        guard let fields = value.dictionary, let file = fields["file"]?.string, let arch = fields["arch"]?.string,
              let fileType = fields["fileType"]?.string, let format = fields["format"]?.string.flatMap(BinarySlice.Format.init(rawValue:))
        else { return nil }
        var slice = BinarySlice(file: FilePath(file), format: format, arch: arch, fileType: fileType)
        slice.uuid = fields["uuid"]?.string
        slice.platform = fields["platform"]?.string
        slice.minOS = fields["minOS"]?.string
        slice.sdk = fields["sdk"]?.string
        slice.signature = fields["signature"]?.string.flatMap(BinarySlice.Signature.init(rawValue:)) ?? .none
        slice.signingIdentifier = fields["signingIdentifier"]?.string
        slice.teamIdentifier = fields["teamIdentifier"]?.string
        func integer(_ value: PlistValue?) -> Int64? { if case let .integer(number)? = value { number } else { nil } }
        if let disk = fields["disk"]?.dictionary, let path = disk["path"]?.string, let device = integer(disk["device"]),
           let inode = integer(disk["inode"]), let size = integer(disk["size"]), let time = integer(disk["time"]) {
            slice.onDisk = BinarySlice.DiskFile(path: FilePath(path), device: UInt64(bitPattern: device), inode: UInt64(bitPattern: inode),
                                                size: size, modificationTime: time)
        }
        return slice
    }
}
