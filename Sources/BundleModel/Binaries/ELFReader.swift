import Codecs
import SystemCalls

/// Reads an ELF file's header and program headers (rule 24, for GNUstep bundles): its machine,
/// its type, and the GNU build-id note. Section headers are never read: stripped or cut files lack
/// them, while the loader's program headers are always there.
enum ELFReader {
    /// `\x7FELF`, read big-endian.
    static let magic: UInt32 = 0x7F45_4C46
    static let maximumProgramHeaders = 4096
    /// A note segment larger than this is not read (real ones are tens of bytes).
    static let maximumNoteBytes = 64 << 10

    static func read(_ reader: inout BoundedReader, file: FilePath, errors: inout [String]) -> BinarySlice? {
        do {
            let ident = try reader.fields(at: 0, count: 16, bigEndian: false, "the ELF identification")
            let elfClass = try ident.u8(4), encoding = try ident.u8(5)
            guard elfClass == 1 || elfClass == 2 else { throw BinaryError("ELF class \(elfClass) is neither 32 nor 64-bit") }
            guard encoding == 1 || encoding == 2 else { throw BinaryError("ELF data encoding \(encoding) is neither little nor big-endian") }
            let is64 = elfClass == 2
            let header = try reader.fields(at: 0, count: is64 ? 64 : 52, bigEndian: encoding == 2, "the ELF header")
            let type = try header.u16(16), machine = try header.u16(18)
            let programOffset = is64 ? try header.u64(32) : UInt64(try header.u32(28))
            let entrySize = Int(try header.u16(is64 ? 54 : 42)), count = Int(try header.u16(is64 ? 56 : 44))
            var slice = BinarySlice(file: file, format: .elf, arch: machineName(machine, is64: is64), fileType: "")
            var interpreted = false
            do {
                guard count <= maximumProgramHeaders else { throw BinaryError("\(count) program headers (at most \(maximumProgramHeaders) are read)") }
                guard count == 0 || entrySize >= (is64 ? 56 : 32) else { throw BinaryError("program headers of \(entrySize) bytes are too small") }
                let table = try reader.fields(at: programOffset, count: count * entrySize, bigEndian: header.bigEndian, "the program headers")
                for index in 0..<count {
                    let base = index * entrySize
                    let kind = try table.u32(base)
                    if kind == 3 { interpreted = true } // PT_INTERP
                    guard kind == 4, slice.uuid == nil else { continue } // PT_NOTE
                    let offset = is64 ? try table.u64(base + 8) : UInt64(try table.u32(base + 4))
                    let size = is64 ? try table.u64(base + 32) : UInt64(try table.u32(base + 16))
                    let align = is64 ? try table.u64(base + 48) : UInt64(try table.u32(base + 28))
                    guard size <= UInt64(maximumNoteBytes) else { throw BinaryError("a note segment of \(size) bytes is not read") }
                    let notes = try reader.fields(at: offset, count: Int(size), bigEndian: header.bigEndian, "note segment \(index)")
                    slice.uuid = try buildID(in: notes, alignment: align == 8 ? 8 : 4)
                }
            } catch {
                errors.append("\(slice.arch): \(error)")
            }
            slice.fileType = fileType(type, interpreted: interpreted)
            return slice
        } catch {
            errors.append("\(error)")
            return nil
        }
    }

    /// The `NT_GNU_BUILD_ID` note's bytes in lower-case hex, if the segment holds one.
    private static func buildID(in notes: FieldReader, alignment: Int) throws -> String? {
        func padded(_ value: Int) -> Int { (value + alignment - 1) / alignment * alignment }
        var position = 0
        while position + 12 <= notes.count {
            let nameSize = Int(try notes.u32(position)), descriptionSize = Int(try notes.u32(position + 4)), type = try notes.u32(position + 8)
            let nameStart = position + 12
            guard nameSize <= notes.count, descriptionSize <= notes.count else { throw BinaryError("a note's sizes run past its segment") }
            // Alignment is of offsets in the segment: with 8, "GNU\0" after the 12-byte header needs none.
            let descriptionStart = padded(nameStart + nameSize)
            guard descriptionStart + descriptionSize <= notes.count else { throw BinaryError("a note runs past its segment") }
            if type == 3, nameSize == 4, notes.bytes(nameStart..<(nameStart + 4)).elementsEqual([0x47, 0x4E, 0x55, 0]) { // "GNU\0"
                // Lookups need at least 4 bytes (8 hex digits, `BinarySlice.uuidKey`); real build-ids have 8 to 20.
                guard descriptionSize >= 4 else { throw BinaryError("a build-id of \(descriptionSize) bytes is too short to identify a build") }
                return Hex.string(notes.bytes(descriptionStart..<(descriptionStart + descriptionSize)))
            }
            position = padded(descriptionStart + descriptionSize)
        }
        return nil
    }

    static func machineName(_ machine: UInt16, is64: Bool) -> String {
        switch machine {
        case 2: "sparc"
        case 3: "i386"
        case 8: "mips"
        case 20: "ppc"
        case 21: "ppc64"
        case 22: is64 ? "s390x" : "s390"
        case 40: "arm"
        case 43: "sparcv9"
        case 50: "ia64"
        case 62: "x86_64"
        case 183: "aarch64"
        case 243: is64 ? "riscv64" : "riscv32"
        case 258: "loongarch64"
        default: "machine\(machine)"
        }
    }

    static func fileType(_ type: UInt16, interpreted: Bool) -> String {
        switch type {
        case 1: "relocatable"
        case 2: "executable"
        case 3: interpreted ? "executable" : "shared-object" // a position-independent executable names its loader
        case 4: "core"
        default: "type\(type)"
        }
    }
}
