import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Checks a mount point before mounting, so that the user gets a sentence naming the problem
/// rather than libfuse's errno.
enum MountPoint {
    static func check(_ mountPoint: String, source: String) throws(MountError) {
        var status = stat()
        let result = (try? FileNameCoding.withCString(mountPoint) { stat($0, &status) }) ?? -1
        if result != 0 {
            switch errno {
            case ENOENT: throw MountError("the mount point \(mountPoint) does not exist; create it with `mkdir -p \(mountPoint)`")
            case ENOTCONN: throw deadMount(mountPoint)
            case EACCES: throw MountError("the mount point \(mountPoint) cannot be reached (permission denied)")
            default: throw MountError("the mount point \(mountPoint) cannot be used: \(String(cString: strerror(errno)))")
            }
        }
        if status.st_mode & S_IFMT != S_IFDIR { throw MountError("the mount point \(mountPoint) is not a directory") }
        if isMountPoint(mountPoint) {
            // A dead FUSE mount may still stat from the kernel's cache; opening it tells.
            do {
                _ = try Descriptor.open(mountPoint, flags: Descriptor.directoryNoFollowFinal)
            } catch let error as SystemError where error.errno == ENOTCONN {
                throw deadMount(mountPoint)
            } catch {}
            throw MountError("\(mountPoint) is busy: something is already mounted there; unmount it first (`fusermount3 -u \(mountPoint)`)")
        }
        if Paths.isWithin(mountPoint, source) {
            throw MountError("the mount point \(mountPoint) is inside the source \(source): the view would contain itself")
        }
        if Paths.isWithin(source, mountPoint) {
            throw MountError("the source \(source) is inside the mount point \(mountPoint): mounting would hide it")
        }
    }

    static func deadMount(_ mountPoint: String) -> MountError {
        MountError("\(mountPoint) is a FUSE mount whose daemon is gone; unmount it with `fusermount3 -uz \(mountPoint)` and mount again")
    }

    /// Whether a file system is mounted exactly at `path` (bind mounts included), from
    /// /proc/self/mountinfo, whose mount points escape space, tab, newline and backslash in octal.
    static func isMountPoint(_ path: String) -> Bool {
        guard let canonical = try? Paths.resolved(path),
              let file = try? Descriptor.open("/proc/self/mountinfo", flags: Descriptor.readOnly),
              let bytes = try? file.readToEnd(limit: 64 << 20)
        else { return false }
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
            guard fields.count > 4 else { continue }
            if FileNameCoding.string(from: unescape(fields[4])) == canonical { return true }
        }
        return false
    }

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
