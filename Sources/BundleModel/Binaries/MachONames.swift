/// Names for the numbers in Mach-O headers (<mach-o/loader.h>, <mach/machine.h>), spelled as
/// Apple's tools and `llvm-objdump --macho` spell them.
enum MachONames {
    static let abi64: UInt32 = 0x0100_0000
    static let abi64_32: UInt32 = 0x0200_0000

    /// `x86_64`, `arm64e`, ...; an unknown pair is shown by its numbers.
    static func architecture(cpuType: UInt32, cpuSubtype: UInt32) -> String {
        let subtype = cpuSubtype & 0x00FF_FFFF // the top byte holds capability bits
        switch cpuType {
        case 7: return "i386"
        case 7 | abi64: return subtype == 8 ? "x86_64h" : "x86_64"
        case 12:
            let names: [UInt32: String] = [5: "armv4t", 6: "armv6", 7: "armv5", 8: "xscale", 9: "armv7", 10: "armv7f", 11: "armv7s",
                                           12: "armv7k", 13: "armv8", 14: "armv6m", 15: "armv7m", 16: "armv7em"]
            return names[subtype] ?? "arm"
        case 12 | abi64: return subtype == 2 ? "arm64e" : "arm64"
        case 12 | abi64_32: return "arm64_32"
        case 18: return "ppc"
        case 18 | abi64: return "ppc64"
        default: return "cpu\(cpuType & ~(abi64 | abi64_32))\(cpuType & abi64 != 0 ? "_64" : "")-\(subtype)"
        }
    }

    static func fileType(_ value: UInt32) -> String {
        let names = ["object", "execute", "fvmlib", "core", "preload", "dylib", "dylinker", "bundle", "dylib_stub", "dsym", "kext_bundle", "fileset"]
        return value >= 1 && Int(value) <= names.count ? names[Int(value) - 1] : "filetype\(value)"
    }

    /// `LC_BUILD_VERSION`'s platform.
    static func platform(_ value: UInt32) -> String {
        let names = ["macos", "ios", "tvos", "watchos", "bridgeos", "maccatalyst", "iossimulator", "tvossimulator", "watchossimulator",
                     "driverkit", "visionos", "visionossimulator"]
        return value >= 1 && Int(value) <= names.count ? names[Int(value) - 1] : "platform\(value)"
    }

    /// The platform an `LC_VERSION_MIN_*` command implies.
    static func versionMinPlatform(_ command: UInt32) -> String? {
        switch command {
        case 0x24: "macos"
        case 0x25: "ios"
        case 0x2F: "tvos"
        case 0x30: "watchos"
        default: nil
        }
    }

    /// `xxxx.yy.zz` nibbles as `11.0` or `10.15.4`; 0 (unknown, "n/a") as nil.
    static func version(_ value: UInt32) -> String? {
        guard value != 0 else { return nil }
        let major = value >> 16, minor = (value >> 8) & 0xFF, patch = value & 0xFF
        return patch == 0 ? "\(major).\(minor)" : "\(major).\(minor).\(patch)"
    }
}
