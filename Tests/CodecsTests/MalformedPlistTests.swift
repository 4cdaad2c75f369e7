import Codecs
import Fixtures
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Hostile binary plists: every one must fail cleanly, quickly, without crashing.
@Suite struct MalformedPlistTests {
    /// Processor time of this thread: a bound on wall time fails on a loaded machine.
    static func threadSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// A binary plist whose objects are given raw, with a trailer computed for them.
    static func binary(objects: [[UInt8]], top: Int = 0, referenceSize: UInt8 = 1) -> [UInt8] {
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects { offsets.append(out.count); out += object }
        let table = out.count
        for offset in offsets { out.append(UInt8(offset)) }
        out += [0, 0, 0, 0, 0, 0, 1, referenceSize]
        out += be64(UInt64(objects.count)) + be64(UInt64(top)) + be64(UInt64(table))
        return out
    }

    static func be64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) } }

    @Test func anArrayContainingItselfIsACycle() {
        let cyclic = Self.binary(objects: [[0xA1, 0x00]])
        #expect(throws: PlistError.self) { try PropertyListReader.read(cyclic) }
    }

    @Test func aDictionaryCycleThroughTwoObjects() {
        let cyclic = Self.binary(objects: [[0xD1, 0x01, 0x02], [0x51, 0x61], [0xA1, 0x00]])
        #expect(throws: PlistError.self) { try PropertyListReader.read(cyclic) }
    }

    @Test func sharedObjectsCannotExpandExponentially() {
        // Object n is an array of two references to object n+1: 2^40 leaves from 80 bytes.
        var objects: [[UInt8]] = []
        for level in 0..<40 { objects.append([0xA2, UInt8(level + 1), UInt8(level + 1)]) }
        objects.append([0x09])
        let bomb = Self.binary(objects: objects)
        #expect(throws: PlistError.self) { try PropertyListReader.read(bomb) }
    }

    @Test func legitimateSharingStillReads() throws {
        // CoreFoundation shares equal strings: one string referenced from many places is fine.
        let shared = Self.binary(objects: [[0xA4, 0x01, 0x01, 0x01, 0x01], [0x51, 0x61]])
        #expect(try PropertyListReader.read(shared).value == .array(Array(repeating: .string("a"), count: 4)))
    }

    @Test func aSharedLeafCannotExpandToGigabytes() {
        // 1 MiB named 100,000 times: 1.1 MB on disk, 100 GiB once every reference is a copy.
        let start = Self.threadSeconds()
        let bomb = SharedReferencePlists.info(identifier: "com.example.bomb", dataBytes: 1 << 20, references: 100_000)
        #expect(throws: PlistError.self) { try PropertyListReader.read(bomb) }
        #expect(Self.threadSeconds() - start < 2, "processor time")
        for shape in SharedReferencePlists.shapes {
            #expect(throws: PlistError.self) { try PropertyListReader.read(shape) }
        }
    }

    @Test func sharingWithinTheBudgetReadsAndSharesStorage() throws {
        // 1 KiB named 100 times: the kind of sharing real writers do, far under the budget.
        let info = try PropertyListReader.read(SharedReferencePlists.info(identifier: "com.example.ok", dataBytes: 1024, references: 100)).value
        let payload = try #require(info.dictionary?["Payload"]?.array)
        #expect(payload.count == 100 && payload.allSatisfy { $0 == payload[0] })
        if case let .data(bytes) = payload[0] { #expect(bytes.count == 1024) } else { Issue.record("not data: \(payload[0])") }
    }

    @Test func truncatedAtEveryLength() {
        let full = PropertyListWriter.binary(.dictionary(["CFBundleIdentifier": .string("org.example.x"), "N": .array([.integer(1), .real(2)])]))
        for length in 0..<full.count {
            let truncated = Array(full.prefix(length))
            // Either an error or, for a prefix that still parses as text, some value: never a crash.
            _ = try? PropertyListReader.read(truncated)
        }
        #expect(throws: PlistError.self) { try PropertyListReader.read(Array(full.dropLast(1))) }
    }

    @Test func absurdLengthsAndOffsets() {
        var huge = Self.binary(objects: [[0x5F, 0x13] + Self.be64(UInt64.max)])
        #expect(throws: PlistError.self) { try PropertyListReader.read(huge) }
        huge = Self.binary(objects: [[0xAF, 0x13] + Self.be64(1 << 40)])
        #expect(throws: PlistError.self) { try PropertyListReader.read(huge) }
        var badTrailer = Self.binary(objects: [[0x09]])
        badTrailer[badTrailer.count - 9] = 0xFF // offset table beyond the file
        #expect(throws: PlistError.self) { try PropertyListReader.read(badTrailer) }
        var badReferenceSize = Self.binary(objects: [[0x09]])
        badReferenceSize[badReferenceSize.count - 25] = 0
        #expect(throws: PlistError.self) { try PropertyListReader.read(badReferenceSize) }
    }

    @Test func deepNestingIsRefusedInEveryFormat() {
        let depth = 10_000
        let openStep = String(repeating: "(", count: depth) + String(repeating: ")", count: depth)
        #expect(throws: PlistError.self) { try PropertyListReader.read(Array(openStep.utf8)) }
        let xml = "<plist>" + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth) + "</plist>"
        #expect(throws: PlistError.self) { try PropertyListReader.read(Array(xml.utf8)) }
        var objects: [[UInt8]] = []
        for level in 0..<250 { objects.append([0xA1, UInt8(truncatingIfNeeded: level + 1)]) }
        objects.append([0x09])
        let binary = Self.binaryWide(objects: objects)
        #expect(throws: PlistError.self) { try PropertyListReader.read(binary) }
    }

    /// Like `binary` but with 2-byte references and offsets, for more than 255 objects.
    static func binaryWide(objects: [[UInt8]]) -> [UInt8] {
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        var patched = objects
        for index in patched.indices where patched[index].count == 2 && patched[index][0] == 0xA1 {
            patched[index] = [0xA1, 0, UInt8(index + 1)]
        }
        for object in patched { offsets.append(out.count); out += object }
        let table = out.count
        for offset in offsets { out += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        out += [0, 0, 0, 0, 0, 0, 2, 2]
        out += be64(UInt64(patched.count)) + be64(0) + be64(UInt64(table))
        return out
    }

    /// biplist's `bogus_file.plist`: a word, a `;`, and a word with neither `=` nor `;` after it is no
    /// dictionary; a strings file that only lacks its last `;` after a value is still read.
    @Test func aBareWordAtTheEndIsNoEntry() throws {
        #expect(throws: PlistError.self) { try PropertyListReader.read(Array("a;djflkadjsflsakdjf".utf8)) }
        let repaired = try PropertyListReader.read(Array("\"a\" = \"b\";\n\"c\" = \"d\"".utf8))
        #expect(repaired.value == .dictionary(["a": .string("b"), "c": .string("d")]))
        #expect(!repaired.problems.isEmpty)
        #expect(try PropertyListReader.read(Array("a;b;".utf8)).value == .dictionary(["a": .string("a"), "b": .string("b")]))
    }

    /// biplist's `small_date.plist` holds 0000-12-30T00:00:00Z, which plistlib and Foundation refuse:
    /// dates outside the years 1 to 9999 are errors in every format; the ends of the range read.
    @Test func datesOutsideTheYears1To9999AreRefused() throws {
        let smallDate: [UInt8] = [0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30, 0xD1, 0x01, 0x02, 0x56, 0x4D, 0x79, 0x44, 0x61,
                                  0x74, 0x65, 0x33, 0xC2, 0x2D, 0x63, 0xC8, 0xC5, 0x00, 0x00, 0x00, 0x08, 0x0B, 0x12, 0x00, 0x00,
                                  0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00,
                                  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1B]
        #expect(throws: PlistError.self) { try PropertyListReader.read(smallDate) }
        for text in ["0000-12-30T00:00:00Z", "10000-01-01T00:00:00Z", "-0001-01-01T00:00:00Z"] {
            #expect(throws: PlistError.self, "\(text)") { try PropertyListReader.read(Array("<plist><date>\(text)</date></plist>".utf8)) }
            #expect(throws: PlistError.self, "\(text)") { try PropertyListReader.read(Array("{ d = <*D\(text)>; }".utf8)) }
        }
        for text in ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"] {
            let xml = try PropertyListReader.read(Array("<plist><date>\(text)</date></plist>".utf8)).value
            guard case let .date(seconds) = xml else { Issue.record("\(text): \(xml)"); continue }
            #expect(try PropertyListReader.read(PropertyListWriter.binary(.date(seconds))).value == xml, "\(text)")
        }
    }

    @Test func garbageTextFailsWithALine() {
        for text in ["<plist><dict>", "<plist><dict>text", "<plist><array><string>a</string>", "{ a = ; }", "{ a = b", "<plist><dict><key>a</key></dict></plist>", "<plist><string>x</plist>", "{ \"a\" \"b\"; }", "<*Q1>"] {
            #expect(throws: PlistError.self, "\(text)") { try PropertyListReader.read(Array(text.utf8)) }
        }
    }
}
