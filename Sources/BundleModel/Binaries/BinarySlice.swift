import Codecs
public import SystemCalls

/// What the headers of one executable image say (rule 24): a Mach-O slice (a thin file is one
/// slice, a universal file one per architecture) or an ELF file. Read by `BinaryReader`.
public struct BinarySlice: Sendable, Hashable {
    public enum Format: String, Sendable {
        case machO = "mach-o"
        case elf
    }

    /// Whether the slice carries a code signature, and whether it could be read.
    public enum Signature: String, Sendable {
        case none
        case read
        case unreadable
    }

    /// The file, relative to the bundle (so a renamed bundle needs no rewrite).
    public var file: FilePath
    public var format: Format
    /// `x86_64`, `arm64`, `arm64e`, `i386`, `ppc`, ... (Mach-O); `x86_64`, `aarch64`, ... (ELF).
    public var arch: String
    /// Mach-O: `execute`, `dylib`, `bundle`, `dsym`, ...; ELF: `executable`, `shared-object`, ...
    public var fileType: String
    /// Mach-O: the `LC_UUID` in upper-case 8-4-4-4-12 form; ELF: the GNU build-id in lower-case hex.
    public var uuid: String? {
        get { spelledUUID }
        set {
            spelledUUID = newValue
            uuidKey = newValue.flatMap(Self.uuidKey)
        }
    }
    private var spelledUUID: String?
    /// The UUID as lookups compare it (rule 25): lower-case hex digits, no hyphens. Made when the
    /// UUID is set (by a scanning thread), not each time a row is written or a match is sought.
    public private(set) var uuidKey: String?

    /// Sets a UUID whose key is known already (a catalogue row holds the key): a by-uuid listing
    /// reads tens of thousands.
    public mutating func setUUID(key: String) {
        spelledUUID = Self.uuid(format: format, key: key)
        uuidKey = key
    }
    public var platform: String?
    public var minOS: String?
    public var sdk: String?
    public var signature: Signature = .none
    public var signingIdentifier: String?
    public var teamIdentifier: String?
    /// The file on disk the headers were read from, as it was then: what a symbol store may
    /// serve (`Catalogue.symbolFile`). Nil for an archive's member, for a file reached through a
    /// link out of its bundle, and in rows written before it was recorded.
    public var onDisk: DiskFile?

    /// A binary file as the indexer read it: the path it opened, every symlink resolved, and what
    /// fstat said of it. A file served is this one, unchanged, or none.
    public struct DiskFile: Sendable, Hashable {
        /// Relative to the bundle; no component is a symlink.
        public var path: FilePath
        public var device: UInt64
        public var inode: UInt64
        public var size: Int64
        /// Nanoseconds since the epoch.
        public var modificationTime: Int64

        public init(path: FilePath, device: UInt64, inode: UInt64, size: Int64, modificationTime: Int64) {
            self.path = path
            self.device = device
            self.inode = inode
            self.size = size
            self.modificationTime = modificationTime
        }

        public init(path: FilePath, status: FileStatus) {
            self.init(path: path, device: status.device, inode: status.inode, size: status.size, modificationTime: status.modificationTime)
        }

        /// Whether `status` is of this file, unchanged since it was read.
        public func isUnchanged(_ status: FileStatus) -> Bool {
            status.type == .regular && status.device == device && status.inode == inode && status.size == size
                && status.modificationTime == modificationTime
        }
    }

    public init(file: FilePath, format: Format, arch: String, fileType: String) {
        self.file = file
        self.format = format
        self.arch = arch
        self.fileType = fileType
    }

    /// A UUID or build-id as typed by a user or a crash report, made comparable: nil when it is
    /// not an even number (at least 8) of hex digits once hyphens are dropped.
    public static func uuidKey(_ text: String) -> String? {
        var digits: [UInt8] = []
        digits.reserveCapacity(text.utf8.count)
        for byte in text.utf8 where byte != UInt8(ascii: "-") {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): digits.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digits.append(byte + 32)
            default: return nil
            }
        }
        guard digits.count >= 8, digits.count % 2 == 0 else { return nil }
        return String(decoding: digits, as: UTF8.self)
    }

    /// 16 bytes in the canonical form: `1B4E28BA-2FA1-11D2-883F-B9A761BDE3FB`.
    public static func canonicalUUID(_ bytes: some Collection<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            Hex.append(byte, uppercase: true, to: &text)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The canonical form of a lookup key of 32 hex digits (a Mach-O UUID); other keys (ELF
    /// build-ids) are shown as they are. `uuid(format:key:)` is exact where this guesses.
    public static func displayUUID(key: String) -> String {
        guard key.utf8.count == 32, let bytes = Hex.bytes(key) else { return key }
        return canonicalUUID(bytes)
    }

    /// The UUID of a slice of this format whose lookup key is `key`: a Mach-O UUID in its
    /// canonical form, an ELF build-id as its key (both are what the readers make).
    public static func uuid(format: Format, key: String) -> String {
        format == .machO ? displayUUID(key: key) : key
    }
}
