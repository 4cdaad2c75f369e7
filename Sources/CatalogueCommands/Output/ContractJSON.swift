package import BundleModel
package import Codecs
import SystemCalls

/// The JSON objects `query --json` and `show --json` print (SPEC.md, "Command line"): the
/// contract's fields in its order, then extras.
package enum ContractJSON {
    /// `archiveError`: the error of the archive the bundle is in, when it could not be read whole.
    package static func object(for record: BundleRecord, languages: [LanguageTag], detailed: Bool = false, archiveError: String? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [
            // Inside an archive, `path` is the archive's (a real path); `member` says where in it.
            ("path", .string((record.archive ?? record.key).string)),
            ("identifier", .optional(record.identifier)),
            ("kind", .string(record.kind.rawValue)),
            ("isPackage", .bool(record.isPackage)),
            ("packageReasons", .strings(record.packageReasons.names)),
            ("isBundle", .bool(record.isBundle)),
            ("name", .string(record.name.string)),
            ("displayName", .string(record.displayName(for: languages))),
            ("version", .optional(record.version)),
            ("shortVersion", .optional(record.shortVersion)),
            ("developmentRegion", .optional(record.developmentRegion)),
            ("localizations", .strings(record.localizations)),
            ("executable", .optional(record.executable?.string)),
            ("icon", .optional(record.icon?.string)),
            ("errors", .strings(record.errors)),
            ("warnings", .strings(record.warnings)),
            ("layout", .optional(record.layout?.rawValue)),
            ("infoFile", .optional(record.infoFile?.string)),
            ("numericVersion", .integer(Int64(record.numericVersion))),
            ("binaries", .array(record.binaries.map { binary(record.key.appending($0.file), $0) })),
            ("archive", .optional(record.archive?.string)),
            ("member", .optional(record.member?.string)),
            ("archiveError", .optional(archiveError)),
            // In an installer's payload (rule 33): where it is installed, and by which component.
            ("installsTo", .optional(record.installation?.installsTo.string)),
            ("component", .optional(record.installation?.component)),
            // A Time Machine backup's (rule 34); null for anything else.
            ("backup", record.backup?.json() ?? .null),
        ]
        if FileNameCoding.hasEscapes(record.key.string) {
            // The name is not UTF-8: give the exact bytes as well.
            members.append(("pathBytes", .string(Base64.encode(record.key.bytes))))
        }
        guard detailed else { return .object(members) }
        members += [
            ("infoFormat", .optional(record.infoFormat?.rawValue)),
            ("resourcesDirectory", .optional(record.resourcesDirectory?.string)),
            ("chosenLocalizations", .strings(record.localizationChooser.lprojSearchOrder(for: languages))),
            ("finderFlags", record.finderFlags.map { .integer(Int64($0)) } ?? .null),
            ("finderInfoSource", .optional(record.finderInfoSource?.rawValue)),
            ("infoPlistStrings", .object(record.infoPlistStrings.keys.sorted().map { localization in
                let table = record.infoPlistStrings[localization]!
                return (localization.string, .object(table.keys.sorted().map { ($0, .string(table[$0]!)) }))
            })),
            ("documentTypes", .array(record.documentTypes.map { type in
                .object([("name", .optional(type.name)), ("extensions", .strings(type.extensions)),
                         ("contentTypes", .strings(type.contentTypes)), ("isPackage", .bool(type.isPackage))])
            })),
            ("info", PlistValue.dictionary(record.info).jsonValue),
        ]
        return .object(members)
    }

    /// One slice of an executable or DWARF file (SPEC.md, "Executables and debug symbols").
    static func binary(_ file: FilePath, _ slice: BinarySlice) -> JSONValue {
        .object([
            ("file", .string(file.string)),
            ("format", .string(slice.format.rawValue)),
            ("arch", .string(slice.arch)),
            ("fileType", .string(slice.fileType)),
            ("uuid", .optional(slice.uuid)),
            ("platform", .optional(slice.platform)),
            ("minOS", .optional(slice.minOS)),
            ("sdk", .optional(slice.sdk)),
            ("signingIdentifier", .optional(slice.signingIdentifier)),
            ("teamIdentifier", .optional(slice.teamIdentifier)),
            ("signature", .string(slice.signature.rawValue)),
        ])
    }
}
