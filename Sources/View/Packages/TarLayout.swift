public import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A package presented as an uncompressed POSIX tar (pax format): every member gets a pax extended
/// header carrying its exact path, link target, size and nanosecond mtime, then a ustar header and
/// its data, padded to 512 bytes; two zero blocks end the archive. The layout (every member's
/// offsets) comes from one walk of the package, so the size is exact before any byte is read, and a
/// read at any offset produces the same bytes as a sequential one. File data is read from the files
/// as needed: nothing is buffered whole.
public struct TarLayout: Sendable {
    public struct Member: Sendable {
        public enum Kind: UInt8, Sendable { case file, directory, symlink, fifo }
        /// Archive path, e.g. `Chess.app/Contents/Info.plist` (directories end in `/`).
        public var name: FilePath
        public var kind: Kind
        public var mode: UInt32
        public var userID: UInt32
        public var groupID: UInt32
        public var size: Int64
        public var modificationTime: Int64
        public var linkTarget: FilePath
        /// Where this member's headers start; its data follows `headerSize` bytes later.
        public var offset: Int64
        public var headerSize: Int64

        public var dataOffset: Int64 { offset + headerSize }
        public var paddedDataSize: Int64 { (size + 511) / 512 * 512 }
        public var end: Int64 { dataOffset + paddedDataSize }
    }

    public let members: [Member]
    public let size: Int64
    /// The directory the package is in: member names continue it to the source paths.
    let container: FilePath
    /// The latest modification time of any member: the archive's own.
    public let modificationTime: Int64

    /// Walks a package directory (never following symlinks) and lays its members out, named from
    /// the package's real name. Devices and sockets are left out; FIFOs are archived as FIFOs,
    /// never opened.
    public init(packagePath: FilePath) throws {
        var members: [Member] = []
        var offset: Int64 = 0
        func add(_ source: FilePath, _ name: FilePath, _ status: FileStatus, kind: Member.Kind, link: FilePath = .here) {
            var member = Member(
                name: name, kind: kind, mode: status.permissions, userID: status.userID, groupID: status.groupID,
                size: kind == .file ? status.size : 0, modificationTime: status.modificationTime, linkTarget: link, offset: offset,
                headerSize: 0)
            member.headerSize = Int64(TarHeaders.headers(for: member).count)
            offset = member.end
            members.append(member)
        }
        func walk(_ path: FilePath, _ name: FilePath) throws {
            let directory = try Descriptor.open(path, flags: Descriptor.directoryNoFollow)
            add(path, FilePath(name.string + "/"), try directory.status(), kind: .directory)
            for entry in try directory.listDirectoryTyped().sorted(by: { $0.name < $1.name }) {
                let childPath = path.appending(entry.name)
                let childName = name.appending(entry.name)
                guard let status = try? directory.status(of: entry.name) else { continue }
                switch status.type {
                case .directory: try walk(childPath, childName)
                case .regular: add(childPath, childName, status, kind: .file)
                case .symlink: add(childPath, childName, status, kind: .symlink, link: (try? directory.readLink(entry.name)) ?? .here)
                case .fifo: add(childPath, childName, status, kind: .fifo)
                default: continue
                }
            }
        }
        try walk(packagePath, FilePath(packagePath.lastComponent))
        self.members = members
        size = offset + 1024
        container = packagePath.parent
        modificationTime = members.map(\.modificationTime).max() ?? 0
    }

    /// The member whose headers or data contain `offset`, by binary search.
    func memberIndex(containing offset: Int64) -> Int? {
        var low = 0, high = members.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let member = members[middle]
            if offset < member.offset { high = middle - 1 } else if offset >= member.end { low = middle + 1 } else { return middle }
        }
        return nil
    }

    /// Reads `count` bytes at `offset`. A file that shrank since the layout was made reads as
    /// zeros past its end; one that grew is cut at the size the layout has: the archive stays
    /// consistent with its listing.
    public func read(offset: Int64, count: Int, files: TarFileSource) -> [UInt8] {
        guard offset < size, count > 0 else { return [] }
        let end = min(size, offset + Int64(count))
        var out: [UInt8] = []
        out.reserveCapacity(Int(end - offset))
        var position = offset
        var index = memberIndex(containing: position)
        while position < end {
            guard let current = index, current < members.count else {
                // The two zero blocks at the end.
                out += [UInt8](repeating: 0, count: Int(end - position))
                break
            }
            let member = members[current]
            if position < member.dataOffset {
                let headers = TarHeaders.headers(for: member)
                let from = Int(position - member.offset)
                let to = Int(min(member.dataOffset, end) - member.offset)
                out += headers[from..<to]
                position = member.offset + Int64(to)
                continue
            }
            let dataEnd = min(member.end, end)
            let inFile = position - member.dataOffset
            var chunk = [UInt8]()
            if inFile < member.size {
                let wanted = Int(min(member.size, dataEnd - member.dataOffset) - inFile)
                chunk = files.read(container.appending(member.name), at: inFile, count: wanted)
                if chunk.count < wanted { chunk += [UInt8](repeating: 0, count: wanted - chunk.count) }
            }
            let padding = Int(dataEnd - position) - chunk.count
            out += chunk
            if padding > 0 { out += [UInt8](repeating: 0, count: padding) }
            position = dataEnd
            index = current + 1
        }
        return out
    }
}

/// Where the tar's file data comes from; keeps a few files open for sequential reads.
public final class TarFileSource: @unchecked Sendable {
    private let lock = ConditionLock()
    private var open: [(path: FilePath, descriptor: Descriptor)] = []

    public init() {}

    func read(_ path: FilePath, at offset: Int64, count: Int) -> [UInt8] {
        let descriptor: Descriptor? = lock.withLock {
            if let index = open.firstIndex(where: { $0.path == path }) { return open[index].descriptor }
            guard let opened = try? Descriptor.open(path, flags: Descriptor.readOnly | O_NOFOLLOW), (try? opened.status().type) == .regular else {
                return nil
            }
            open.append((path, opened))
            if open.count > 4 { open.removeFirst() }
            return opened
        }
        return (try? descriptor?.read(at: offset, count: count)) ?? []
    }
}

/// The header blocks of one member: a pax extended header ('x') and a ustar header.
enum TarHeaders {
    static func headers(for member: TarLayout.Member) -> [UInt8] {
        var records: [(String, [UInt8])] = [("path", member.name.bytes)]
        if member.kind == .symlink { records.append(("linkpath", member.linkTarget.bytes)) }
        if member.size > 0o77777777777 { records.append(("size", Array(String(member.size).utf8))) }
        records.append(("mtime", Array(formatTime(member.modificationTime).utf8)))
        var pax: [UInt8] = []
        for (key, value) in records { pax += record(key, value) }
        let paxName = "PaxHeaders/" + String(decoding: asciiPrefix(member.name.bytes, limit: 80), as: UTF8.self)
        var out = ustar(name: paxName, mode: 0o644, userID: 0, groupID: 0, size: Int64(pax.count), modificationTime: member.modificationTime,
                        typeflag: UInt8(ascii: "x"), linkName: [])
        out += pax
        out += [UInt8](repeating: 0, count: (512 - pax.count % 512) % 512)
        let typeflag: UInt8
        switch member.kind {
        case .file: typeflag = UInt8(ascii: "0")
        case .directory: typeflag = UInt8(ascii: "5")
        case .symlink: typeflag = UInt8(ascii: "2")
        case .fifo: typeflag = UInt8(ascii: "6")
        }
        out += ustar(name: String(decoding: asciiPrefix(member.name.bytes, limit: 100), as: UTF8.self), mode: member.mode,
                     userID: member.userID, groupID: member.groupID, size: member.size <= 0o77777777777 ? member.size : 0,
                     modificationTime: member.modificationTime, typeflag: typeflag, linkName: asciiPrefix(member.linkTarget.bytes, limit: 100))
        return out
    }

    /// `"%d %s=%s\n"` where the leading length counts the whole record, itself included.
    static func record(_ key: String, _ value: [UInt8]) -> [UInt8] {
        let body = Array(" \(key)=".utf8) + value + [0x0A]
        var length = body.count + 1
        while String(length).utf8.count + body.count != length { length += 1 }
        return Array(String(length).utf8) + body
    }

    static func formatTime(_ nanoseconds: Int64) -> String {
        let seconds = nanoseconds >= 0 ? nanoseconds / 1_000_000_000 : (nanoseconds - 999_999_999) / 1_000_000_000
        let fraction = nanoseconds - seconds * 1_000_000_000
        if fraction == 0 { return String(seconds) }
        let digits = String(fraction)
        return "\(seconds)." + String(repeating: "0", count: 9 - digits.count) + digits
    }

    /// The name for the legacy fields: pax carries the real one; these keep ASCII and the length.
    static func asciiPrefix(_ bytes: [UInt8], limit: Int) -> [UInt8] {
        Array(bytes.map { $0 < 0x80 && $0 >= 0x20 ? $0 : UInt8(ascii: "_") }.prefix(limit))
    }

    static func ustar(name: String, mode: UInt32, userID: UInt32, groupID: UInt32, size: Int64, modificationTime: Int64,
                      typeflag: UInt8, linkName: [UInt8]) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: 512)
        func put(_ bytes: [UInt8], at offset: Int, length: Int) {
            for (index, byte) in bytes.prefix(length).enumerated() { block[offset + index] = byte }
        }
        func octal(_ value: Int64, at offset: Int, length: Int) {
            let digits = String(max(0, value), radix: 8)
            let padded = String(repeating: "0", count: max(0, length - 1 - digits.count)) + digits
            put(Array(padded.utf8.suffix(length - 1)), at: offset, length: length - 1)
        }
        put(Array(name.utf8), at: 0, length: 100)
        octal(Int64(mode & 0o7777), at: 100, length: 8)
        octal(Int64(userID & 0o7777777), at: 108, length: 8)
        octal(Int64(groupID & 0o7777777), at: 116, length: 8)
        octal(size, at: 124, length: 12)
        let seconds = modificationTime >= 0 ? modificationTime / 1_000_000_000 : 0
        octal(min(seconds, 0o77777777777), at: 136, length: 12)
        block[156] = typeflag
        put(linkName, at: 157, length: 100)
        put(Array("ustar".utf8) + [0], at: 257, length: 6)
        put(Array("00".utf8), at: 263, length: 2)
        // The checksum is computed with its own field as spaces.
        for index in 148..<156 { block[index] = 0x20 }
        let sum = block.reduce(0) { $0 + Int64($1) }
        let digits = String(sum, radix: 8)
        put(Array((String(repeating: "0", count: 6 - digits.count) + digits).utf8) + [0, 0x20], at: 148, length: 8)
        return block
    }
}
