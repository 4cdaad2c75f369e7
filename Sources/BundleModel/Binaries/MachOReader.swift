import SystemCalls

/// Reads Mach-O headers (rule 23 and 24): a thin file, or each slice of a universal one, as far as
/// its load commands and, when signed, its CodeDirectory. Never the rest of the file.
enum MachOReader {
    static let fatMagic: UInt32 = 0xCAFE_BABE
    static let fatMagic64: UInt32 = 0xCAFE_BABF
    /// More slices than any real universal file has.
    static let maximumSlices: UInt32 = 32
    /// Load commands larger than this are a lie (real ones are a few kilobytes; the largest seen
    /// are under a megabyte).
    static let maximumLoadCommandBytes: UInt32 = 8 << 20

    static func isThinMagic(_ word: UInt32) -> Bool {
        [0xFEED_FACE, 0xFEED_FACF, 0xCEFA_EDFE, 0xCFFA_EDFE].contains(word)
    }

    /// Whether the first four bytes (read big-endian) open a universal file.
    static func isFatMagic(_ word: UInt32) -> Bool { word == fatMagic || word == fatMagic64 }

    /// The slices of a universal file; problems go to `errors`, and the slices that could be read are kept.
    static func readUniversal(_ reader: inout BoundedReader, file: FilePath, errors: inout [String]) -> [BinarySlice] {
        do {
            let header = try reader.fields(at: 0, count: 8, bigEndian: true, "the universal header")
            let is64 = try header.u32(0) == fatMagic64
            let count = try header.u32(4)
            guard count > 0 else { throw BinaryError("a universal binary with no slices") }
            guard count <= maximumSlices else {
                // A Java class file shares the magic; its next word, the class version, is 45 or more.
                throw BinaryError("a universal header claiming \(count) slices (at most \(maximumSlices) are read; a Java class file?)")
            }
            let entrySize = is64 ? 32 : 20
            let table = try reader.fields(at: 8, count: Int(count) * entrySize, bigEndian: true, "the universal header's slice table")
            let tableEnd = UInt64(8 + Int(count) * entrySize)
            var taken: [(start: UInt64, end: UInt64)] = []
            var slices: [BinarySlice] = []
            for index in 0..<Int(count) {
                let base = index * entrySize
                let cpuType = try table.u32(base), cpuSubtype = try table.u32(base + 4)
                let offset = is64 ? try table.u64(base + 8) : UInt64(try table.u32(base + 8))
                let size = is64 ? try table.u64(base + 16) : UInt64(try table.u32(base + 12))
                let architecture = MachONames.architecture(cpuType: cpuType, cpuSubtype: cpuSubtype)
                guard offset >= tableEnd, offset <= reader.size, size <= reader.size - offset, size > 0 else {
                    errors.append("slice \(index) (\(architecture)) at offset \(offset), \(size) bytes, is not inside the file (\(reader.size) bytes)")
                    continue
                }
                if let other = taken.firstIndex(where: { offset < $0.end && $0.start < offset + size }) {
                    errors.append("slice \(index) (\(architecture)) overlaps slice \(other)")
                    continue
                }
                taken.append((offset, offset + size))
                do {
                    var slice = try readThin(&reader, at: offset, size: size, file: file, errors: &errors)
                    if slice.arch != architecture {
                        errors.append("slice \(index) is listed as \(architecture) but its header says \(slice.arch)")
                        slice.arch = architecture
                    }
                    slices.append(slice)
                } catch {
                    errors.append("slice \(index) (\(architecture)): \(error)")
                }
            }
            return slices
        } catch {
            errors.append("\(error)")
            return []
        }
    }

    /// One thin Mach-O image at `offset`, `size` bytes long. Problems after the header (a bad load
    /// command, an unreadable signature) go to `errors` and leave what was read before them.
    static func readThin(_ reader: inout BoundedReader, at offset: UInt64, size: UInt64, file: FilePath, errors: inout [String]) throws -> BinarySlice {
        // The header is read once, at its largest (a stream reads forward only).
        guard size >= 28 else { throw BinaryError("the Mach-O header is cut short (\(size) bytes)") }
        let headerBytes = try reader.bytes(at: offset, count: Int(min(32, size)), "the Mach-O header")
        let magic = try FieldReader(headerBytes, bigEndian: true).u32(0)
        guard isThinMagic(magic) else { throw BinaryError("not a Mach-O image (magic \(hex(magic)))") }
        let bigEndian = magic == 0xFEED_FACE || magic == 0xFEED_FACF
        let is64 = magic == 0xFEED_FACF || magic == 0xCFFA_EDFE
        let headerSize = is64 ? 32 : 28
        guard UInt64(headerSize) <= size, headerBytes.count >= headerSize else { throw BinaryError("the Mach-O header is cut short (\(size) bytes)") }
        let header = FieldReader(headerBytes, bigEndian: bigEndian)
        let cpuType = try header.u32(4), cpuSubtype = try header.u32(8), fileType = try header.u32(12)
        let commandCount = try header.u32(16), commandBytes = try header.u32(20)
        var slice = BinarySlice(file: file, format: .machO, arch: MachONames.architecture(cpuType: cpuType, cpuSubtype: cpuSubtype),
                                fileType: MachONames.fileType(fileType))
        do {
            guard commandBytes <= maximumLoadCommandBytes else {
                throw BinaryError("load commands of \(commandBytes) bytes (more than \(maximumLoadCommandBytes >> 20) MiB) are not read")
            }
            guard UInt64(headerSize) + UInt64(commandBytes) <= size else {
                throw BinaryError("load commands of \(commandBytes) bytes run past the end of the image (\(size) bytes)")
            }
            // Each command takes at least 8 bytes: a count above that is a lie, found before any loop.
            guard UInt64(commandCount) * 8 <= UInt64(commandBytes) else {
                throw BinaryError("\(commandCount) load commands cannot fit in \(commandBytes) bytes")
            }
            let commands = try reader.fields(at: offset + UInt64(headerSize), count: Int(commandBytes), bigEndian: bigEndian, "the load commands")
            // After the commands: a bad command makes the slice an error before any signature is read.
            if let (dataOffset, dataSize) = try readCommands(commands, count: commandCount, into: &slice) {
                readSignature(&reader, sliceOffset: offset, sliceSize: size, dataOffset: dataOffset, dataSize: dataSize, into: &slice, errors: &errors)
            }
        } catch {
            errors.append("\(slice.arch): \(error)")
        }
        return slice
    }

    /// Fills the slice from its load commands; returns where its code signature is, if anywhere.
    private static func readCommands(_ commands: FieldReader, count: UInt32, into slice: inout BinarySlice) throws -> (UInt32, UInt32)? {
        var position = 0
        var hasBuildVersion = false
        var signatureAt: (UInt32, UInt32)?
        for index in 0..<Int(count) {
            guard position + 8 <= commands.count else { throw BinaryError("load command \(index) starts past the end of the load commands") }
            let command = try commands.u32(position) & 0x7FFF_FFFF // without LC_REQ_DYLD
            let commandSize = Int(try commands.u32(position + 4))
            guard commandSize >= 8, commandSize <= commands.count - position else {
                throw BinaryError("load command \(index) claims \(commandSize) bytes, which do not fit in the load commands")
            }
            func field(_ at: Int, needs minimum: Int) throws -> UInt32 {
                guard commandSize >= minimum else { throw BinaryError("load command \(index) (\(hex(command))) is too short: \(commandSize) bytes") }
                return try commands.u32(position + at)
            }
            switch command {
            case 0x1B: // LC_UUID
                _ = try field(8, needs: 24)
                slice.uuid = BinarySlice.canonicalUUID(commands.bytes((position + 8)..<(position + 24)))
            case 0x32: // LC_BUILD_VERSION
                slice.platform = MachONames.platform(try field(8, needs: 24))
                slice.minOS = MachONames.version(try field(12, needs: 24))
                slice.sdk = MachONames.version(try field(16, needs: 24))
                hasBuildVersion = true
            case 0x24, 0x25, 0x2F, 0x30: // LC_VERSION_MIN_*: only when there is no LC_BUILD_VERSION
                guard !hasBuildVersion else { break }
                slice.platform = MachONames.versionMinPlatform(command)
                slice.minOS = MachONames.version(try field(8, needs: 16))
                slice.sdk = MachONames.version(try field(12, needs: 16))
            case 0x1D: // LC_CODE_SIGNATURE
                signatureAt = (try field(8, needs: 16), try field(12, needs: 16))
            default:
                break
            }
            position += commandSize
        }
        return signatureAt
    }

    // MARK: Code signature

    static let superBlobMagic: UInt32 = 0xFADE_0CC0
    static let codeDirectoryMagic: UInt32 = 0xFADE_0C02
    /// A CodeDirectory's header up to `teamOffset` (version 0x20200 and later).
    static let codeDirectoryHeaderSize = 52
    static let maximumBlobs: UInt32 = 64

    /// The CodeDirectory's identifier and team, read from the superblob's index: a few hundred
    /// bytes, whatever the signature's size. Big-endian whatever the image's byte order.
    private static func readSignature(_ reader: inout BoundedReader, sliceOffset: UInt64, sliceSize: UInt64, dataOffset: UInt32, dataSize: UInt32,
                                      into slice: inout BinarySlice, errors: inout [String]) {
        do {
            guard UInt64(dataOffset) + UInt64(dataSize) <= sliceSize, dataSize >= 12 else {
                throw BinaryError("its \(dataSize) bytes at offset \(dataOffset) are not inside the image")
            }
            let start = sliceOffset + UInt64(dataOffset)
            let header = try reader.fields(at: start, count: 12, bigEndian: true, "the signature's header")
            guard try header.u32(0) == superBlobMagic else { throw BinaryError("no signature superblob (magic \(hex(try header.u32(0))))") }
            let count = try header.u32(8)
            guard count <= maximumBlobs, 12 + UInt64(count) * 8 <= UInt64(dataSize) else { throw BinaryError("an index of \(count) blobs does not fit") }
            let index = try reader.fields(at: start + 12, count: Int(count) * 8, bigEndian: true, "the signature's index")
            guard let entry = try (0..<Int(count)).first(where: { try index.u32($0 * 8) == 0 }) else {
                throw BinaryError("no CodeDirectory")
            }
            let blobOffset = UInt64(try index.u32(entry * 8 + 4))
            guard blobOffset + 44 <= UInt64(dataSize) else { throw BinaryError("the CodeDirectory is not inside the signature") }
            let available = Int(min(UInt64(codeDirectoryHeaderSize), UInt64(dataSize) - blobOffset))
            let directory = try reader.fields(at: start + blobOffset, count: available, bigEndian: true, "the CodeDirectory")
            guard try directory.u32(0) == codeDirectoryMagic else { throw BinaryError("the CodeDirectory's magic is \(hex(try directory.u32(0)))") }
            let length = UInt64(try directory.u32(4))
            guard length >= 44, blobOffset + length <= UInt64(dataSize) else { throw BinaryError("a CodeDirectory of \(length) bytes does not fit") }
            let version = try directory.u32(8)
            slice.signingIdentifier = try readString(&reader, blobStart: start + blobOffset, blobLength: length, at: try directory.u32(20), "identifier")
            if version >= 0x20200, available >= codeDirectoryHeaderSize, case let teamOffset = try directory.u32(48), teamOffset != 0 {
                slice.teamIdentifier = try readString(&reader, blobStart: start + blobOffset, blobLength: length, at: teamOffset, "team identifier")
            }
            slice.signature = .read
        } catch {
            slice.signature = .unreadable
            slice.signingIdentifier = nil
            slice.teamIdentifier = nil
            errors.append("\(slice.arch): the code signature cannot be read: \(error)")
        }
    }

    /// A NUL-terminated string inside a blob, read in one bounded piece.
    private static func readString(_ reader: inout BoundedReader, blobStart: UInt64, blobLength: UInt64, at offset: UInt32, _ what: String) throws -> String {
        let limit: UInt64 = 1024
        guard UInt64(offset) < blobLength else { throw BinaryError("the \(what) at \(offset) is outside the CodeDirectory") }
        let count = Int(min(limit, blobLength - UInt64(offset)))
        let bytes = try reader.fields(at: blobStart + UInt64(offset), count: count, bigEndian: true, "the \(what)")
        guard let text = bytes.cString(0, limit: count) else { throw BinaryError("the \(what) is not a terminated UTF-8 string") }
        return text
    }

    static func hex(_ value: UInt32) -> String { "0x" + String(value, radix: 16) }
}
