import SystemCalls

/// The header blocks of one member: a pax extended header ('x') and a ustar header.
enum TarHeaders {
    static func headers(for member: TarLayout.Member) -> [UInt8] {
        var records: [(String, [UInt8])] = [("path", member.name.bytes)]
        if member.kind == .symlink || member.kind == .hardLink { records.append(("linkpath", member.linkTarget.bytes)) }
        if member.size > 0o77777777777 { records.append(("size", Array(String(member.size).utf8))) }
        records.append(("mtime", Array(formatTime(member.modificationTime).utf8)))
        for (name, value) in member.extendedAttributes { records.append(("SCHILY.xattr." + name, value)) }
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
        case .hardLink: typeflag = UInt8(ascii: "1")
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
