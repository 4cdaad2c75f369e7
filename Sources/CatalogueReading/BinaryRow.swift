package import BundleModel
import SystemCalls

/// The `binaries` row of one slice of a bundle's executable or DWARF file (rule 24); `file` is
/// relative to the bundle, so renaming a bundle leaves these rows as they are.
package enum BinaryRow {
    package static let names = ["bundle_id", "slice", "file", "format", "arch", "file_type", "uuid_key", "platform", "min_os", "sdk",
                        "signature", "signing_identifier", "team_identifier", "disk_path", "device", "inode", "size", "modification_time"]

    package static let insertSQL = "INSERT INTO binaries (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"

    /// What queries select, in this order.
    package static let selectList = names.joined(separator: ", ")

    /// `index` is the slice's position in the record (its order when read back).
    package static func bind(_ slice: BinarySlice, bundleID: Int64, index: Int, to statement: some ColumnBinder) {
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
        let disk = slice.onDisk
        statement.bind(14, disk?.path.string)
        statement.bind(15, disk.map { Int64(bitPattern: $0.device) })
        statement.bind(16, disk.map { Int64(bitPattern: $0.inode) })
        statement.bind(17, disk?.size)
        statement.bind(18, disk?.modificationTime)
    }

    /// The slice of a row of `selectList`.
    package static func slice(_ row: some ColumnValues) -> BinarySlice {
        let format = row.text(3).flatMap(BinarySlice.Format.init(rawValue:)) ?? .machO
        var slice = BinarySlice(file: FilePath(row.text(2) ?? ""), format: format, arch: row.text(4) ?? "", fileType: row.text(5) ?? "")
        if let key = row.text(6) { slice.setUUID(key: key) }
        slice.platform = row.text(7)
        slice.minOS = row.text(8)
        slice.sdk = row.text(9)
        slice.signature = row.text(10).flatMap(BinarySlice.Signature.init(rawValue:)) ?? .none
        slice.signingIdentifier = row.text(11)
        slice.teamIdentifier = row.text(12)
        // All five or none (a row from before schema v17, an archive's member): not servable.
        if let path = row.text(13), !path.isEmpty, let device = row.integer(14), let inode = row.integer(15), let size = row.integer(16),
           let time = row.integer(17) {
            slice.onDisk = BinarySlice.DiskFile(path: FilePath(path), device: UInt64(bitPattern: device), inode: UInt64(bitPattern: inode),
                                                size: size, modificationTime: time)
        }
        return slice
    }
}
