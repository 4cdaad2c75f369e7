import CArchive
#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// A xar's table of contents (a `.pkg`, a `.xar`), judged before libarchive sees the file:
/// libarchive inflates and parses the whole table into memory in its first
/// `archive_read_next_header`, before any limit of ours can act, so a 1 MB package whose table
/// expands to 600 MB of identical entries took 4.5 GB. The 28-byte header (big-endian: magic
/// `xar!`, header size, version, the table's compressed and uncompressed lengths, checksum
/// algorithm) is checked as libarchive's `xar_bid` and `read_toc` check it (libarchive 3.6); its
/// lengths are held to the file, the byte budget and the compression ratio; and because a header
/// may lie, the table is then inflated here, a piece at a time and never kept, no further than
/// the length it declares, counting the `<file>` and `<ea>` elements libarchive would allocate.
public enum XarTableOfContents {
    static let magic: [UInt8] = Array("xar!".utf8)
    static let headerSize = 28

    struct Header: Equatable {
        var compressedLength: UInt64
        var uncompressedLength: UInt64
    }

    /// The header, or nil when libarchive would not read the bytes as a xar (its `xar_bid`):
    /// the magic, a header size of 28, version 1, and a checksum of none, SHA-1 or MD5.
    static func header(_ bytes: some RandomAccessCollection<UInt8>) -> Header? {
        guard bytes.count >= headerSize, bytes.prefix(4).elementsEqual(magic), be(bytes, 4, 2) == UInt64(headerSize), be(bytes, 6, 2) == 1,
              be(bytes, 24, 4) <= 2 else { return nil }
        return Header(compressedLength: be(bytes, 8, 8), uncompressedLength: be(bytes, 16, 8))
    }

    /// Why the lengths alone refuse the table (`fileSize`: the whole file's), or nil.
    static func refusal(of header: Header, fileSize: Int64, limits: ArchiveLimits) -> String? {
        let available = UInt64(max(0, fileSize - Int64(headerSize)))
        if header.compressedLength > available {
            return "the xar table of contents is \(header.compressedLength) bytes, more than the file's \(available) after its header; not read"
        }
        if header.uncompressedLength > UInt64(limits.uncompressedBytes) {
            return "the xar table of contents expands to \(header.uncompressedLength >> 20) MiB, more than \(limits.uncompressedBytes >> 20) MiB; not read"
        }
        let compressed = max(1, header.compressedLength)
        if header.uncompressedLength >= 1 << 20, header.uncompressedLength / compressed >= UInt64(limits.compressionRatio) {
            return "the xar table of contents expands \(header.uncompressedLength / compressed)-fold (\(header.uncompressedLength >> 20) MiB "
                + "from \(header.compressedLength >> 10) KiB; a bomb?); not read"
        }
        return nil
    }

    /// Whether `file` starts with a header libarchive reads as a xar's.
    static func isXar(_ file: Descriptor) -> Bool {
        (try? file.read(at: 0, count: headerSize)).flatMap(header) != nil
    }

    /// Why the xar in `file` cannot be read within `limits`, or nil when it can (or is no xar,
    /// or is damaged where libarchive will say what is wrong).
    static func refusal(of file: Descriptor, limits: ArchiveLimits, deadline: Double) -> String? {
        guard let bytes = try? file.read(at: 0, count: headerSize), let header = header(bytes),
              let size = try? file.status().size else { return nil }
        if let refusal = refusal(of: header, fileSize: size, limits: limits) { return refusal }
        return try? scan(header, limits: limits, deadline: deadline) { offset, count in try file.read(at: offset, count: count) }
    }

    /// The same judgement of a xar held in memory (`make fuzz` feeds it mutated tables).
    public static func refusal(ofBytes bytes: [UInt8], limits: ArchiveLimits, deadline: Double) -> String? {
        guard let header = header(bytes) else { return nil }
        if let refusal = refusal(of: header, fileSize: Int64(bytes.count), limits: limits) { return refusal }
        return try? scan(header, limits: limits, deadline: deadline) { offset, count in
            guard offset < bytes.count else { return [] }
            return Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
        }
    }

    /// Inflates the table that follows the header (`read`: bytes of the file at an offset) and
    /// counts its elements; the refusal, or nil. Throws only when the file cannot be read.
    static func scan(_ header: Header, limits: ArchiveLimits, deadline: Double, read: (Int64, Int) throws -> [UInt8]) throws -> String? {
        var stream = z_stream()
        guard inflateInit_(&stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var counter = ElementCounter()
        var output = [UInt8](repeating: 0, count: 64 * 1024)
        var offset = Int64(headerSize)
        var left = header.compressedLength
        var produced: UInt64 = 0
        while left > 0 {
            guard Clocks.monotonicSeconds() <= deadline else { return ArchiveReader.timeError(limits) }
            var input = try read(offset, Int(min(left, 64 * 1024)))
            guard !input.isEmpty else { return nil }
            offset += Int64(input.count)
            left -= UInt64(input.count)
            var status = Z_OK
            var refusal: String?
            input.withUnsafeMutableBufferPointer { source in
                stream.next_in = source.baseAddress
                stream.avail_in = UInt32(source.count)
                // Until the piece is used up: inflate leaves room in the output only then.
                repeat {
                    let count = output.withUnsafeMutableBufferPointer { out in
                        stream.next_out = out.baseAddress
                        stream.avail_out = UInt32(out.count)
                        status = inflate(&stream, Z_NO_FLUSH)
                        return out.count - Int(stream.avail_out)
                    }
                    produced += UInt64(count)
                    guard produced <= header.uncompressedLength else {
                        refusal = "the xar table of contents expands past the \(header.uncompressedLength) bytes its header says; not read"
                        return
                    }
                    counter.scan(output[..<count])
                    refusal = counter.refusal(limits: limits)
                } while refusal == nil && status == Z_OK && stream.avail_out == 0
            }
            if let refusal { return refusal }
            // The stream's end or damage: libarchive reads no further either (and says what is wrong).
            guard status == Z_OK || status == Z_BUF_ERROR else { return nil }
        }
        return nil
    }

    /// Counts `<file` and `<ea` start tags in a stream of pieces (a tag may straddle two): what
    /// libarchive allocates a structure for as it parses. Comments and CDATA are counted too,
    /// which only errs toward refusing a table no xar writer makes.
    struct ElementCounter {
        var files = 0
        var attributes = 0
        /// libarchive keeps a member's attributes in a list sorted by insertion, quadratic in
        /// their number: counted since the last `<file`, and held to `attributesPerMember`.
        private var attributesOfFile = 0
        private(set) var mostAttributesOfFile = 0
        static let attributesPerMember = 1_000
        /// The end of the previous piece from its last `<`, when a tag may continue into the next.
        private var carry: [UInt8] = []

        mutating func scan(_ piece: some RandomAccessCollection<UInt8>) {
            guard !piece.isEmpty else { return }
            var bytes = carry
            carry = []
            bytes.append(contentsOf: piece)
            bytes.withUnsafeBytes { raw in
                var at = 0
                while at < raw.count, let hit = memchr(raw.baseAddress! + at, Int32(UInt8(ascii: "<")), raw.count - at) {
                    let start = raw.baseAddress!.distance(to: UnsafeRawPointer(hit))
                    // `<file` and a delimiter are six bytes: fewer left wait for the next piece.
                    guard raw.count - start >= 6 else {
                        carry = Array(raw[start...])
                        return
                    }
                    if raw[start + 1] == UInt8(ascii: "f"), raw[start + 2] == UInt8(ascii: "i"), raw[start + 3] == UInt8(ascii: "l"),
                       raw[start + 4] == UInt8(ascii: "e"), Self.endsName(raw[start + 5]) {
                        files += 1
                        attributesOfFile = 0
                    } else if raw[start + 1] == UInt8(ascii: "e"), raw[start + 2] == UInt8(ascii: "a"), Self.endsName(raw[start + 3]) {
                        attributes += 1
                        attributesOfFile += 1
                        mostAttributesOfFile = max(mostAttributesOfFile, attributesOfFile)
                    }
                    at = start + 1
                }
            }
        }

        /// Whitespace, `>` or `/`: what may follow an element's name in its start tag.
        private static func endsName(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ">"), UInt8(ascii: "/"): true
            default: false
            }
        }

        func refusal(limits: ArchiveLimits) -> String? {
            if files > limits.members { return "more than \(limits.members) members: the xar table of contents lists more; not read" }
            if attributes > limits.members {
                return "more than \(limits.members) extended attributes in the xar table of contents; not read"
            }
            if mostAttributesOfFile > Self.attributesPerMember {
                return "a member with more than \(Self.attributesPerMember) extended attributes in the xar table of contents; not read"
            }
            return nil
        }
    }

    /// A big-endian unsigned field.
    static func be(_ bytes: some RandomAccessCollection<UInt8>, _ offset: Int, _ width: Int) -> UInt64 {
        let start = bytes.index(bytes.startIndex, offsetBy: offset)
        return bytes[start..<bytes.index(start, offsetBy: width)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
