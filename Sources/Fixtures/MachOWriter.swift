/// Writes small Mach-O and ELF files with exactly the headers bundlefs reads (a header, `LC_UUID`,
/// `LC_BUILD_VERSION` or `LC_VERSION_MIN_*`, `LC_CODE_SIGNATURE` with a CodeDirectory), thin or
/// universal, for tests, the sample tree and the benchmark tree. Tests check what it writes with
/// the toolchain's `llvm-objdump` and binutils' `readelf`, not with bundlefs's own readers.
public struct MachOImage: Sendable {
    public var cpuType: UInt32
    public var cpuSubtype: UInt32
    /// 2 `execute`, 6 `dylib`, 8 `bundle`, 10 `dsym`.
    public var fileType: UInt32 = 2
    public var is64 = true
    public var bigEndian = false
    public var uuid: [UInt8]?
    public var buildVersion: (platform: UInt32, minOS: UInt32, sdk: UInt32)?
    /// An `LC_VERSION_MIN_*` command (0x24 macOS, 0x25 iOS, 0x2F tvOS, 0x30 watchOS).
    public var versionMin: (command: UInt32, version: UInt32, sdk: UInt32)?
    public var signature: (identifier: String, team: String?)?
    /// Bytes after the load commands, standing in for code.
    public var bodySize = 64

    public init(cpuType: UInt32, cpuSubtype: UInt32) {
        self.cpuType = cpuType
        self.cpuSubtype = cpuSubtype
    }

    public static func arm64(uuid: [UInt8]? = nil) -> MachOImage { with(MachOImage(cpuType: 0x0100_000C, cpuSubtype: 0), uuid: uuid) }
    public static func x86_64(uuid: [UInt8]? = nil) -> MachOImage { with(MachOImage(cpuType: 0x0100_0007, cpuSubtype: 3), uuid: uuid) }

    private static func with(_ image: MachOImage, uuid: [UInt8]?) -> MachOImage {
        var image = image
        image.uuid = uuid
        image.buildVersion = (1, MachOImage.version(11, 0), MachOImage.version(14, 2))
        return image
    }

    /// `xxxx.yy.zz` nibbles.
    public static func version(_ major: UInt32, _ minor: UInt32, _ patch: UInt32 = 0) -> UInt32 { major << 16 | minor << 8 | patch }

    /// 16 bytes that differ for every seed, the same on every run.
    public static func uuid(seed: Int) -> [UInt8] {
        var generator = SeededGenerator(seed: UInt64(truncatingIfNeeded: seed) &+ 0x5EED)
        return (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    public func bytes() -> [UInt8] {
        var commands = ByteSink(bigEndian: bigEndian)
        var count: UInt32 = 0
        if let uuid {
            commands.u32(0x1B); commands.u32(24); commands.bytes(uuid)
            count += 1
        }
        if let build = buildVersion {
            commands.u32(0x32); commands.u32(24); commands.u32(build.platform); commands.u32(build.minOS); commands.u32(build.sdk); commands.u32(0)
            count += 1
        }
        if let minimum = versionMin {
            commands.u32(minimum.command); commands.u32(16); commands.u32(minimum.version); commands.u32(minimum.sdk)
            count += 1
        }
        let headerSize = is64 ? 32 : 28
        let blob = signature.map { Self.signatureBlob(identifier: $0.identifier, team: $0.team) }
        let signatureCommandSize = blob == nil ? 0 : 16
        let bodyStart = headerSize + commands.count + signatureCommandSize
        let signatureOffset = (bodyStart + bodySize + 15) / 16 * 16
        if let blob {
            commands.u32(0x1D); commands.u32(16); commands.u32(UInt32(signatureOffset)); commands.u32(UInt32(blob.count))
            count += 1
        }
        var file = ByteSink(bigEndian: bigEndian)
        file.u32(is64 ? 0xFEED_FACF : 0xFEED_FACE)
        file.u32(cpuType); file.u32(cpuSubtype); file.u32(fileType); file.u32(count); file.u32(UInt32(commands.count)); file.u32(0)
        if is64 { file.u32(0) }
        file.bytes(commands.data)
        file.bytes([UInt8](repeating: 0xC3, count: bodySize))
        if let blob {
            file.bytes([UInt8](repeating: 0, count: signatureOffset - file.count))
            file.bytes(blob)
        }
        return file.data
    }

    /// A superblob holding one CodeDirectory (version 0x20200: identifier and team), no hashes.
    static func signatureBlob(identifier: String, team: String?) -> [UInt8] {
        let identifierBytes = Array(identifier.utf8) + [0]
        let teamBytes: [UInt8] = team.map { Array($0.utf8) + [0] } ?? []
        let directoryHeader = 52
        let directoryLength = directoryHeader + identifierBytes.count + teamBytes.count
        var directory = ByteSink(bigEndian: true)
        directory.u32(0xFADE_0C02); directory.u32(UInt32(directoryLength)); directory.u32(0x20200); directory.u32(0)
        directory.u32(UInt32(directoryLength)) // hashOffset: no hashes follow
        directory.u32(UInt32(directoryHeader)) // identOffset
        directory.u32(0); directory.u32(0); directory.u32(0) // special slots, code slots, code limit
        directory.bytes([32, 2, 0, 12]); directory.u32(0); directory.u32(0) // hash size and type, platform, page size; spare; scatter
        directory.u32(team == nil ? 0 : UInt32(directoryHeader + identifierBytes.count))
        directory.bytes(identifierBytes)
        directory.bytes(teamBytes)
        var blob = ByteSink(bigEndian: true)
        blob.u32(0xFADE_0CC0); blob.u32(UInt32(20 + directory.count)); blob.u32(1)
        blob.u32(0); blob.u32(20)
        blob.bytes(directory.data)
        return blob.data
    }

    /// A universal file of these images, each at an `alignment` boundary (a power of two; 4 KiB
    /// by default, Apple's linker uses 16 KiB for arm64).
    public static func universal(_ images: [MachOImage], fat64: Bool = false, alignment: Int = 4096) -> [UInt8] {
        let bodies = images.map { $0.bytes() }
        var header = ByteSink(bigEndian: true)
        header.u32(fat64 ? 0xCAFE_BABF : 0xCAFE_BABE); header.u32(UInt32(images.count))
        var offset = alignment
        let alignmentPower = UInt32(alignment.trailingZeroBitCount)
        var offsets: [Int] = []
        for (image, body) in zip(images, bodies) {
            offsets.append(offset)
            header.u32(image.cpuType); header.u32(image.cpuSubtype)
            if fat64 {
                header.u64(UInt64(offset)); header.u64(UInt64(body.count)); header.u32(alignmentPower); header.u32(0)
            } else {
                header.u32(UInt32(offset)); header.u32(UInt32(body.count)); header.u32(alignmentPower)
            }
            offset = (offset + body.count + alignment - 1) / alignment * alignment
        }
        var file = header.data
        for (start, body) in zip(offsets, bodies) {
            file += [UInt8](repeating: 0, count: start - file.count)
            file += body
        }
        return file
    }
}

/// A 64-bit little-endian ELF file as GNUstep builds one: a position-independent executable naming
/// its loader, with a GNU build-id note.
public struct ELFImage: Sendable {
    public var machine: UInt16 = 62
    public var buildID: [UInt8]?
    public var interpreter = "/lib64/ld-linux-x86-64.so.2"

    public init(buildID: [UInt8]?) { self.buildID = buildID }

    public func bytes() -> [UInt8] {
        var interpreterBytes = Array(interpreter.utf8) + [0]
        interpreterBytes += [UInt8](repeating: 0, count: (4 - interpreterBytes.count % 4) % 4)
        var note = ByteSink(bigEndian: false)
        if let buildID {
            note.u32(4); note.u32(UInt32(buildID.count)); note.u32(3); note.bytes(Array("GNU".utf8) + [0])
            note.bytes(buildID + [UInt8](repeating: 0, count: (4 - buildID.count % 4) % 4))
        }
        let programHeaders = 2
        let interpreterOffset = 64 + 56 * programHeaders
        let noteOffset = interpreterOffset + interpreterBytes.count
        var file = ByteSink(bigEndian: false)
        file.bytes([0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0] + [UInt8](repeating: 0, count: 8))
        file.u16(3); file.u16(machine); file.u32(1)
        file.u64(0x1000); file.u64(64); file.u64(0) // entry, program headers, no section headers
        file.u32(0); file.u16(64); file.u16(56); file.u16(UInt16(programHeaders)); file.u16(64); file.u16(0); file.u16(0)
        for (type, offset, size, align) in [(UInt32(3), interpreterOffset, interpreterBytes.count, 1), (4, noteOffset, note.count, 4)] {
            file.u32(type); file.u32(4)
            file.u64(UInt64(offset)); file.u64(UInt64(offset)); file.u64(UInt64(offset))
            file.u64(UInt64(size)); file.u64(UInt64(size)); file.u64(UInt64(align))
        }
        file.bytes(interpreterBytes)
        file.bytes(note.data)
        file.bytes([UInt8](repeating: 0x90, count: 64))
        return file.data
    }
}

/// Integers appended in a chosen byte order.
struct ByteSink {
    let bigEndian: Bool
    private(set) var data: [UInt8] = []
    var count: Int { data.count }

    init(bigEndian: Bool) { self.bigEndian = bigEndian }

    mutating func bytes(_ bytes: [UInt8]) { data += bytes }
    mutating func u16(_ value: UInt16) { integer(UInt64(value), 2) }
    mutating func u32(_ value: UInt32) { integer(UInt64(value), 4) }
    mutating func u64(_ value: UInt64) { integer(value, 8) }

    private mutating func integer(_ value: UInt64, _ width: Int) {
        for index in 0..<width {
            let shift = 8 * (bigEndian ? width - 1 - index : index)
            data.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}

extension FuzzSeeds {
    /// Executables of every shape the readers take: thin and signed, universal (32 and 64-bit
    /// tables), big-endian 32-bit, ELF with a build-id.
    public static var binaries: [[UInt8]] {
        var signed = MachOImage.arm64(uuid: MachOImage.uuid(seed: 8))
        signed.signature = ("com.example.Signed", "TEAM123456")
        var ppc = MachOImage(cpuType: 18, cpuSubtype: 0)
        ppc.is64 = false
        ppc.bigEndian = true
        ppc.uuid = MachOImage.uuid(seed: 9)
        ppc.versionMin = (0x24, MachOImage.version(10, 4), 0)
        return [signed.bytes(), MachOImage.universal([.x86_64(uuid: MachOImage.uuid(seed: 10)), signed], alignment: 256),
                MachOImage.universal([signed, ppc], fat64: true, alignment: 256), ppc.bytes(), ELFImage(buildID: MachOImage.uuid(seed: 11)).bytes()]
    }
}
