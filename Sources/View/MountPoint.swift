public import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Checks a mount point before mounting, so that the user gets a sentence naming the problem
/// rather than libfuse's errno.
public enum MountPoint {
    public static func check(_ mountPoint: FilePath, source: FilePath, refusesNonEmpty: Bool = false) throws(MountError) {
        var status = stat()
        let result = (try? mountPoint.withCString { stat($0, &status) }) ?? -1
        if result != 0 {
            switch errno {
            case ENOENT: throw MountError("the mount point \(mountPoint) does not exist; create it with `mkdir -p \(mountPoint)`")
            case ENOTCONN: throw deadMount(mountPoint)
            case EACCES: throw MountError("the mount point \(mountPoint) cannot be reached (permission denied)")
            default: throw MountError("the mount point \(mountPoint) cannot be used: \(String(cString: strerror(errno)))")
            }
        }
        if status.st_mode & S_IFMT != S_IFDIR { throw MountError("the mount point \(mountPoint) is not a directory") }
        if MountTable.isMountPoint(mountPoint) {
            // A dead FUSE mount may still stat from the kernel's cache; opening it tells.
            do {
                _ = try Descriptor.open(mountPoint, flags: Descriptor.directoryNoFollowFinal)
            } catch let error as SystemError where error.errno == ENOTCONN {
                throw deadMount(mountPoint)
            } catch {}
            throw MountError("\(mountPoint) is busy: something is already mounted there; unmount it first (`fusermount3 -u \(mountPoint)`)")
        }
        if mountPoint.isWithin(source) {
            throw MountError("the mount point \(mountPoint) is inside the source \(source): the view would contain itself")
        }
        if source.isWithin(mountPoint) {
            throw MountError("the source \(source) is inside the mount point \(mountPoint): mounting would hide it")
        }
        if refusesNonEmpty, let entries = try? Descriptor.open(mountPoint, flags: Descriptor.directoryNoFollowFinal).listDirectory(), !entries.isEmpty {
            throw MountError("\(mountPoint) is not empty: the view would hide what it holds; mount on an empty directory, or give --nonempty")
        }
    }

    static func deadMount(_ mountPoint: FilePath) -> MountError {
        MountError("\(mountPoint) is a FUSE mount whose daemon is gone; unmount it with `fusermount3 -uz \(mountPoint)` and mount again")
    }

    /// Whether `mountPoint` is a FUSE mount whose daemon is gone (it answers ENOTCONN).
    public static func isDead(_ mountPoint: FilePath) -> Bool {
        guard MountTable.isMountPoint(mountPoint) else { return false }
        do {
            _ = try Descriptor.open(mountPoint, flags: Descriptor.directoryNoFollowFinal)
            return false
        } catch let error as SystemError {
            return error.errno == ENOTCONN
        } catch {
            return false
        }
    }
}
