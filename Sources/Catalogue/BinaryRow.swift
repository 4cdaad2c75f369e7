import BundleModel
import GRDB
import SystemCalls

/// The `binaries` row of one slice of a bundle's executable or DWARF file (rule 24); `file` is
/// relative to the bundle, so renaming a bundle leaves these rows as they are.
enum BinaryRow {
    static let names = ["bundle_id", "slice", "file", "format", "arch", "file_type", "uuid_key", "platform", "min_os", "sdk",
                        "signature", "signing_identifier", "team_identifier"]

    static let insertSQL = "INSERT INTO binaries (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"

    /// What queries select, in this order.
    static let selectList = names.joined(separator: ", ")

    /// `index` is the slice's position in the record (its order when read back).
    static func bind(_ slice: BinarySlice, bundleID: Int64, index: Int, to statement: RawStatement) {
        statement.bind(1, bundleID)
        statement.bind(2, Int64(index))
        statement.bind(3, slice.file.string)
        statement.bind(4, slice.format.rawValue)
        statement.bind(5, slice.arch)
        statement.bind(6, slice.fileType)
        statement.bind(7, slice.uuidKey)
        statement.bind(8, slice.platform)
        statement.bind(9, slice.minOS)
        statement.bind(10, slice.sdk)
        statement.bind(11, slice.signature.rawValue)
        statement.bind(12, slice.signingIdentifier)
        statement.bind(13, slice.teamIdentifier)
    }

    /// The slice of a row of `selectList`.
    static func slice(_ row: Row) -> BinarySlice {
        let format = BinarySlice.Format(rawValue: row[3]) ?? .machO
        var slice = BinarySlice(file: FilePath(row[2] as String), format: format, arch: row[4], fileType: row[5])
        if let key = row[6] as String? { slice.setUUID(key: key) }
        slice.platform = row[7]
        slice.minOS = row[8]
        slice.sdk = row[9]
        slice.signature = BinarySlice.Signature(rawValue: row[10]) ?? .none
        slice.signingIdentifier = row[11]
        slice.teamIdentifier = row[12]
        return slice
    }
}
