/// The mounts this process sees, from /proc/self/mountinfo.
public enum MountTable {
    /// Whether a file system is mounted exactly at `path` (bind mounts included). The parent is
    /// resolved rather than the path itself, because a dead FUSE mount cannot be resolved.
    public static func isMountPoint(_ path: FilePath) -> Bool {
        let parent = path.parent
        let canonical = path == .root ? path
            : (try? (parent.isEmpty ? "." : parent).resolved()).map { $0.appending(path.lastComponent) } ?? path
        guard let file = try? Descriptor.open("/proc/self/mountinfo", flags: Descriptor.readOnly),
              let bytes = try? file.readToEnd(limit: 64 << 20)
        else { return false }
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
            guard fields.count > 4 else { continue }
            if FilePath(bytes: unescape(fields[4])) == canonical { return true }
        }
        return false
    }

    /// Mount points escape space, tab, newline and backslash as three octal digits.
    static func unescape(_ field: ArraySlice<UInt8>) -> [UInt8] {
        var result: [UInt8] = []
        var index = field.startIndex
        while index < field.endIndex {
            if field[index] == UInt8(ascii: "\\"), index + 3 < field.endIndex,
               let value = UInt8(String(decoding: field[index + 1...index + 3], as: UTF8.self), radix: 8) {
                result.append(value)
                index += 4
            } else {
                result.append(field[index])
                index += 1
            }
        }
        return result
    }
}
