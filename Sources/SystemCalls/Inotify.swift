#if canImport(Glibc)
import Glibc
#endif
import CSystemShims

/// What an inotify watch reports; the subset bundlefs uses.
public struct InotifyMask: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let modify = InotifyMask(rawValue: UInt32(IN_MODIFY))
    public static let attrib = InotifyMask(rawValue: UInt32(IN_ATTRIB))
    public static let closeWrite = InotifyMask(rawValue: UInt32(IN_CLOSE_WRITE))
    public static let movedFrom = InotifyMask(rawValue: UInt32(IN_MOVED_FROM))
    public static let movedTo = InotifyMask(rawValue: UInt32(IN_MOVED_TO))
    public static let create = InotifyMask(rawValue: UInt32(IN_CREATE))
    public static let delete = InotifyMask(rawValue: UInt32(IN_DELETE))
    public static let deleteSelf = InotifyMask(rawValue: UInt32(IN_DELETE_SELF))
    public static let moveSelf = InotifyMask(rawValue: UInt32(IN_MOVE_SELF))
    public static let unmount = InotifyMask(rawValue: UInt32(IN_UNMOUNT))
    public static let queueOverflow = InotifyMask(rawValue: UInt32(IN_Q_OVERFLOW))
    public static let ignored = InotifyMask(rawValue: UInt32(IN_IGNORED))
    public static let isDirectory = InotifyMask(rawValue: UInt32(IN_ISDIR))
    public static let onlyDirectory = InotifyMask(rawValue: UInt32(IN_ONLYDIR))
    public static let dontFollow = InotifyMask(rawValue: UInt32(IN_DONT_FOLLOW))
    public static let excludeUnlinked = InotifyMask(rawValue: UInt32(IN_EXCL_UNLINK))

    public var description: String {
        let names: [(InotifyMask, String)] = [
            (.modify, "MODIFY"), (.attrib, "ATTRIB"), (.closeWrite, "CLOSE_WRITE"), (.movedFrom, "MOVED_FROM"),
            (.movedTo, "MOVED_TO"), (.create, "CREATE"), (.delete, "DELETE"), (.deleteSelf, "DELETE_SELF"),
            (.moveSelf, "MOVE_SELF"), (.unmount, "UNMOUNT"), (.queueOverflow, "Q_OVERFLOW"), (.ignored, "IGNORED"),
            (.isDirectory, "ISDIR"),
        ]
        return names.filter { contains($0.0) }.map(\.1).joined(separator: "|")
    }
}

/// One event read from an inotify descriptor.
public struct InotifyEvent: Sendable, Equatable {
    /// The watch it came from; -1 for a queue overflow.
    public var watch: Int32
    public var mask: InotifyMask
    /// Pairs IN_MOVED_FROM with IN_MOVED_TO of the same rename.
    public var cookie: UInt32
    /// The entry of the watched directory the event is about; nil for events about the directory itself.
    public var name: FileName?

    public init(watch: Int32, mask: InotifyMask, cookie: UInt32, name: FileName?) {
        self.watch = watch
        self.mask = mask
        self.cookie = cookie
        self.name = name
    }
}

/// An inotify instance: watches are added by path, events are read in large batches.
public final class Inotify: Sendable {
    public let descriptor: Int32

    public init() throws {
        let fd = inotify_init1(Int32(IN_CLOEXEC))
        if fd < 0 { throw SystemError.last("inotify_init1") }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Adds (or updates) the watch on a directory; fails with ENOSPC at the watch limit.
    public func addWatch(_ path: FilePath, mask: InotifyMask) throws -> Int32 {
        let watch = try path.withCString { inotify_add_watch(descriptor, $0, mask.rawValue) }
        if watch < 0 { throw SystemError.last("inotify_add_watch", path: path.string) }
        return watch
    }

    public func removeWatch(_ watch: Int32) {
        _ = inotify_rm_watch(descriptor, watch)
    }

    /// Waits until events are ready or `wake` becomes readable; returns false when woken (or on timeout).
    public func waitForEvents(orWakeUp wake: WakePipe, timeoutMilliseconds: Int32 = -1) -> Bool {
        var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
        while true {
            let result = poll(&descriptors, 2, timeoutMilliseconds)
            if result < 0 && errno == EINTR { continue }
            return result > 0 && descriptors[0].revents & Int16(POLLIN) != 0 && descriptors[1].revents == 0
        }
    }

    /// Reads every event currently queued, in one or more reads of up to `bufferSize` bytes.
    public func readEvents(bufferSize: Int = 256 * 1024) throws -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 8)
        defer { buffer.deallocate() }
        let headerSize = MemoryLayout<inotify_event>.size
        while true {
            var available: Int32 = 0
            _ = ioctl(descriptor, UInt(FIONREAD), &available)
            if available == 0 && !events.isEmpty { return events }
            let count = read(descriptor, buffer, bufferSize)
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError.last("read inotify")
            }
            var offset = 0
            while offset + headerSize <= count {
                let header = (buffer + offset).loadUnaligned(as: inotify_event.self)
                var name: FileName?
                if header.len > 0 {
                    let bytes = UnsafeRawBufferPointer(start: buffer + offset + headerSize, count: Int(header.len))
                    let length = bytes.firstIndex(of: 0) ?? bytes.count
                    name = FileName(bytes: bytes[0..<length])
                }
                events.append(InotifyEvent(watch: header.wd, mask: InotifyMask(rawValue: header.mask), cookie: header.cookie, name: name))
                offset += headerSize + Int(header.len)
            }
            if available <= Int32(count) { return events }
        }
    }

    /// The kernel's per-user watch limit.
    public static var maximumWatches: Int {
        guard let file = try? Descriptor.open("/proc/sys/fs/inotify/max_user_watches", flags: Descriptor.readOnly),
              let bytes = try? file.read(at: 0, count: 32)
        else { return 8192 }
        return Int(String(decoding: bytes, as: UTF8.self).trimmingCharacters()) ?? 8192
    }
}

/// A pipe whose write end wakes a thread blocked in `poll` on its read end.
public final class WakePipe: Sendable {
    public let readEnd: Int32
    public let writeEnd: Int32

    public init() throws {
        var ends: [Int32] = [0, 0]
        if bfs_pipe2(&ends, O_CLOEXEC | O_NONBLOCK) != 0 { throw SystemError.last("pipe2") }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    public func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }
}

extension String {
    func trimmingCharacters() -> String {
        String(self.drop { $0 == " " || $0 == "\n" }.reversed().drop { $0 == " " || $0 == "\n" }.reversed())
    }
}
