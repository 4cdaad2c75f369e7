import BundleModel
import Catalogue
import SystemCalls

/// The PostgreSQL rows of a bundle: the columns lookups filter on, and the whole record.
enum PublishedRows {
    static let bundleColumns = ["host", "path", "path_text", "identifier", "identifier_key", "kind", "name", "version", "short_version",
                                "in_archive", "error_count", "record"]
    static let binaryColumns = ["host", "path", "slice", "arch", "uuid_key"]

    /// The slices of the bundles written, copied after them (one COPY at a time per connection).
    struct Binaries {
        var rows: [[PostgresCopyRows.Value]] = []
    }

    /// A path as the local catalogue keys and orders it (its text's UTF-8, memcmp order), so that
    /// subtree ranges and the listing order are the same in both.
    static func key(_ path: FilePath) -> [UInt8] { Array(path.string.utf8) }

    /// Identifiers compare as SQLite's NOCASE does: ASCII letters folded, nothing else.
    static func identifierKey(_ identifier: String) -> String {
        String(decoding: identifier.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    static func append(_ record: BundleRecord, host: String, to rows: inout PostgresCopyRows, binaries: inout Binaries) {
        let key = key(record.key)
        let identifier = record.identifier
        rows.append([
            .text(host), .bytes(key), .text(record.key.string), identifier.map { .text($0) } ?? .null,
            identifier.map { .text(identifierKey($0)) } ?? .null, .text(record.kind.rawValue), .text(record.name.string),
            record.version.map { .text($0) } ?? .null, record.shortVersion.map { .text($0) } ?? .null,
            .boolean(record.archive != nil), .int32(Int32(clamping: record.errors.count)), .bytes(RecordCoding.encode(record)),
        ])
        for (index, slice) in record.binaries.enumerated() {
            binaries.rows.append([.text(host), .bytes(key), .int32(Int32(index)), .text(slice.arch), slice.uuidKey.map { .text($0) } ?? .null])
        }
    }
}
