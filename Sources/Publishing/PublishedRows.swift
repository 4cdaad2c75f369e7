import BundleModel
import Catalogue
import Codecs
import Foundation
import SystemCalls

/// The PostgreSQL rows of a bundle: the columns lookups filter on, and the whole record.
enum PublishedRows {
    static let bundleColumns = ["host", "path", "path_text", "identifier", "identifier_key", "kind", "name", "version", "short_version",
                                "in_archive", "error_count", "record", "names"]
    static let binaryColumns = ["host", "path", "slice", "arch", "uuid_key"]
    static let claimColumns = ["host", "path", "target_kind", "target", "role", "rank"]
    static let tagColumns = ["host", "path", "kind", "value", "type_key"]
    static let wordColumns = ["host", "path", "word"]

    /// The rows that refer to the bundles written (their slices, an application's claims and type
    /// tags), copied after them: one COPY at a time per connection.
    struct Dependents {
        var binaries: [[PostgresCopyRows.Value]] = []
        var claims: [[PostgresCopyRows.Value]] = []
        var tags: [[PostgresCopyRows.Value]] = []
        var words: [[PostgresCopyRows.Value]] = []

        /// Each table with its columns and rows.
        var tables: [(table: String, columns: [String], rows: [[PostgresCopyRows.Value]])] {
            [("bundlefs_binaries", binaryColumns, binaries), ("bundlefs_launch_claims", claimColumns, claims), ("bundlefs_type_tags", tagColumns, tags),
             ("bundlefs_name_words", wordColumns, words)]
        }
    }

    /// A path as the local catalogue keys and orders it (its text's UTF-8, memcmp order), so that
    /// subtree ranges and the listing order are the same in both.
    static func key(_ path: FilePath) -> [UInt8] { Array(path.string.utf8) }

    /// The path a key was made from.
    static func path(_ key: [UInt8]) -> FilePath { FilePath(String(decoding: key, as: UTF8.self)) }

    /// A bytea value as libpq's text format gives it (`\x` and hex digits). Read in place: a page
    /// decodes 200 records of a kilobyte or more, and copying each text first cost as much again.
    static func bytes(ofBytea text: String?) throws -> [UInt8] {
        guard var text else { throw PostgresError("a bytea value that is not hex") }
        let bytes = text.withUTF8 { utf8 -> [UInt8]? in
            guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x") else { return nil }
            return Hex.bytes(digits: UnsafeBufferPointer(rebasing: utf8[2...]))
        }
        guard let bytes else { throw PostgresError("a bytea value that is not hex") }
        return bytes
    }

    /// Identifiers compare as SQLite's NOCASE does: ASCII letters folded, nothing else.
    static func identifierKey(_ identifier: String) -> String {
        String(decoding: identifier.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// A name or a searched text as the `names` column keeps it: lower-cased (Swift's: PostgreSQL's
    /// depends on the database's locale), in NFC, so that LIKE compares bytes; without NUL, which
    /// PostgreSQL's text cannot hold (a strings file's value may).
    static func searchForm(_ text: String) -> String {
        String(text.lowercased().precomposedStringWithCanonicalMapping.unicodeScalars.filter { $0 != "\0" })
    }

    /// The words a word search looks up (schema v5): the runs of letters and digits of a search
    /// form, each at most `wordBytes` of UTF-8 (a longer one is kept by its beginning, which is
    /// what a lookup by beginning needs; a B-tree entry has a size limit), without repeats.
    static func words(_ searchForm: String) -> [String] {
        var words: [String] = [], seen = Set<String>(), word = ""
        func end() {
            if !word.isEmpty, seen.insert(word).inserted { words.append(word) }
            word = ""
        }
        for character in searchForm {
            if character.isLetter || character.isNumber {
                if word.utf8.count + character.utf8.count <= wordBytes { word.append(character) }
            } else {
                end()
            }
        }
        end()
        return words
    }

    static let wordBytes = 200

    static func append(_ record: BundleRecord, host: String, to rows: inout PostgresCopyRows, dependents: inout Dependents) {
        let key = key(record.key)
        let identifier = record.identifier
        let names = record.searchedNames.map(searchForm).joined(separator: "\n")
        rows.append([
            .text(host), .bytes(key), .text(record.key.string), identifier.map { .text($0) } ?? .null,
            identifier.map { .text(identifierKey($0)) } ?? .null, .text(record.kind.rawValue), .text(record.name.string),
            record.version.map { .text($0) } ?? .null, record.shortVersion.map { .text($0) } ?? .null,
            .boolean(record.archive != nil), .int32(Int32(clamping: record.errors.count)), .bytes(RecordCoding.encode(record)),
            .text(names),
        ])
        for word in words(names) { dependents.words.append([.text(host), .bytes(key), .text(word)]) }
        for (index, slice) in record.binaries.enumerated() {
            dependents.binaries.append([.text(host), .bytes(key), .int32(Int32(index)), .text(slice.arch), slice.uuidKey.map { .text($0) } ?? .null])
        }
        // The local catalogue's rows (LaunchRows). Claims that differ only in a type's case are one
        // row, as SQLite's INSERT OR IGNORE makes them: COPY has no such clause.
        var claimed = Set<[String]>()
        for claim in LaunchRows.claims(of: record) {
            let (kind, value) = LaunchRows.columns(claim.target)
            let row = [kind, value, claim.role.rawValue, claim.rank.rawValue]
            guard claimed.insert(row).inserted else { continue }
            dependents.claims.append([.text(host), .bytes(key)] + row.map { .text($0) })
        }
        for tag in LaunchRows.tags(of: record) {
            dependents.tags.append([.text(host), .bytes(key), .text(tag.kind), .text(tag.value), .text(tag.typeKey)])
        }
    }
}
