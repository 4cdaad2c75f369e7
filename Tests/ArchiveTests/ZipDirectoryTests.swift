import Archives
import Foundation
import SystemCalls
import Testing
import TestSupport

/// A zip's central directory counts toward the member limit before libarchive reads it into
/// memory (rule 27): the reader refuses at open, from the end record's count or, when that lies,
/// from the entries counted as libarchive would walk them.
@Suite struct ZipDirectoryTests {
    let temporary = TemporaryDirectory("zip-directory")

    /// A zip of `count` empty members written by Python's zipfile, then `patch` (Python) applied
    /// to its bytes `b`.
    func zip(_ count: Int, patch: String = "") throws -> String {
        let path = temporary.appending("many.zip")
        let script = ["import", "struct,", "zipfile"].joined(separator: " ") + """

            with zipfile.ZipFile('\(path)', 'w') as z:
                for i in range(\(count)):
                    z.writestr('m/%d' % i, '')
            b = bytearray(open('\(path)', 'rb').read())
            \(patch)
            open('\(path)', 'wb').write(b)
            """
        let made = try Subprocess.run("/usr/bin/python3", ["-c", script])
        try #require(made.status == 0, "\(made)")
        return path
    }

    func open(_ path: String, members: Int) throws -> ArchiveReader {
        var limits = ArchiveLimits.standard
        limits.members = members
        return try ArchiveReader(try Descriptor.open(FilePath(path), flags: Descriptor.readOnly), limits: limits)
    }

    @Test func theEndRecordsCountIsRefusedAtOpen() throws {
        let path = try zip(5000)
        let error = #expect(throws: ArchiveError.self) { _ = try open(path, members: 1000) }
        #expect(error?.description == "more than 1000 members: the zip's central directory lists 5000; not read")
        // At the limit it opens and lists.
        let reader = try open(path, members: 5001)
        var listed = 0
        while try reader.next() != nil { listed += 1 }
        #expect(listed == 5000)
    }

    /// Past 65,535 members the end record says 0xFFFF and the ZIP64 record has the count.
    @Test func theZip64RecordsCountIsRefusedAtOpen() throws {
        let path = try zip(70000)
        let error = #expect(throws: ArchiveError.self) { _ = try open(path, members: 68000) }
        #expect(error?.description.contains("central directory lists 70000") == true, "\(String(describing: error))")
    }

    /// An end record that says 10 while the directory holds 5,000: counted as libarchive walks it.
    @Test func aLyingCountIsCountedEntryByEntry() throws {
        let path = try zip(5000, patch: Self.countOfTen)
        let error = #expect(throws: ArchiveError.self) { _ = try open(path, members: 1000) }
        #expect(error?.description == "more than 1000 members: the zip's central directory holds more; not read")
    }

    /// Says 10 in the end record, whatever the directory holds.
    static let countOfTen = "end = b.rfind(b'PK\\x05\\x06'); struct.pack_into('<HH', b, end + 8, 10, 10)"

    /// Data before the zip (a self-extractor's stub) moves its directory: the count still finds it,
    /// searching forward from where the end record says it starts, as libarchive does.
    @Test func aPrependedStubIsWalkedPast() throws {
        let path = try zip(3000, patch: Self.countOfTen + "; b = bytearray(b'#!/bin/sh\\n' * 1000) + b")
        let error = #expect(throws: ArchiveError.self) { _ = try open(path, members: 2000) }
        #expect(error?.description.contains("holds more") == true, "\(String(describing: error))")
        let reader = try open(path, members: 3001)
        var listed = 0
        while try reader.next() != nil { listed += 1 }
        #expect(listed == 3000)
    }
}
