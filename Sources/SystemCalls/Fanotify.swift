#if canImport(Glibc)
import Glibc
#endif
import CSystemShims

/// What a fanotify mark reports; the subset bundlefs uses (linux/fanotify.h).
public struct FanotifyMask: OptionSet, Sendable, Hashable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static let modify = FanotifyMask(rawValue: 0x0000_0002)
    public static let attrib = FanotifyMask(rawValue: 0x0000_0004)
    public static let closeWrite = FanotifyMask(rawValue: 0x0000_0008)
    public static let movedFrom = FanotifyMask(rawValue: 0x0000_0040)
    public static let movedTo = FanotifyMask(rawValue: 0x0000_0080)
    public static let create = FanotifyMask(rawValue: 0x0000_0100)
    public static let delete = FanotifyMask(rawValue: 0x0000_0200)
    public static let deleteSelf = FanotifyMask(rawValue: 0x0000_0400)
    public static let moveSelf = FanotifyMask(rawValue: 0x0000_0800)
    public static let queueOverflow = FanotifyMask(rawValue: 0x0000_4000)
    /// Both ends of a rename in one event (Linux 5.17).
    public static let rename = FanotifyMask(rawValue: 0x1000_0000)
    public static let onDirectory = FanotifyMask(rawValue: 0x4000_0000)
}

/// A directory's file handle with its filesystem's id: what fanotify names directories by. Kept
/// inline (handles of up to 32 bytes: ext4, xfs, tmpfs, btrfs), so a table of millions of them
/// costs no allocation each.
public struct DirectoryHandle: Hashable, Sendable {
    public static let capacity = 32
    public let fsid: UInt64
    public let type: Int32
    public let length: UInt8
    private let words: (UInt64, UInt64, UInt64, UInt64)

    /// nil for a handle longer than `capacity`.
    public init?(fsid: UInt64, type: Int32, bytes: UnsafeRawBufferPointer) {
        guard bytes.count <= Self.capacity else { return nil }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: bytes) }
        self.fsid = fsid
        self.type = type
        length = UInt8(bytes.count)
        self.words = words
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.fsid == b.fsid && a.type == b.type && a.length == b.length
            && a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fsid)
        hasher.combine(type)
        hasher.combine(words.0)
        hasher.combine(words.1)
    }

    /// The 8-byte words the handle's bytes fill (the last padded with zeros).
    public var wordCount: Int { Self.wordCount(length: length) }

    /// The words a handle of `length` bytes fills.
    public static func wordCount(length: UInt8) -> Int { (Int(length) + 7) / 8 }

    /// Word `index` of the handle's bytes, `index < wordCount`.
    public func word(_ index: Int) -> UInt64 {
        switch index {
        case 0: words.0
        case 1: words.1
        case 2: words.2
        default: words.3
        }
    }

    /// The handle of an open directory, or of the directory at `path` (a final symlink is not
    /// followed). Fails with EOPNOTSUPP on a filesystem that gives no handles, EOVERFLOW for a
    /// handle longer than `capacity`.
    public static func of(descriptor: Descriptor?, path: FilePath) throws(SystemError) -> DirectoryHandle {
        var bytes = [UInt8](repeating: 0, count: capacity)
        var type: Int32 = 0
        var fsid: UInt64 = 0
        let length = bytes.withUnsafeMutableBufferPointer { buffer in
            path.string.withCString { bfs_directory_handle(descriptor?.rawValue ?? -1, $0, buffer.baseAddress, UInt32(capacity), &type, &fsid) }
        }
        if length < 0 { throw SystemError.last("name_to_handle_at", path: path.string) }
        return bytes.withUnsafeBytes { DirectoryHandle(fsid: fsid, type: type, bytes: UnsafeRawBufferPointer(rebasing: $0[0..<Int(length)])) }!
    }
}

/// One event read from a fanotify group that reports directory handles and names.
public struct FanotifyEvent: Sendable, Equatable {
    public var mask: FanotifyMask
    /// The directory the event happened in (for a rename, the one the entry left), and the entry's
    /// name there; nil name: the event is about the directory itself.
    public var directory: DirectoryHandle?
    public var name: FileName?
    /// For a rename: where the entry went.
    public var newDirectory: DirectoryHandle?
    public var newName: FileName?

    public init(mask: FanotifyMask, directory: DirectoryHandle? = nil, name: FileName? = nil, newDirectory: DirectoryHandle? = nil, newName: FileName? = nil) {
        self.mask = mask
        self.directory = directory
        self.name = name
        self.newDirectory = newDirectory
        self.newName = newName
    }
}

/// A fanotify group in notification mode reporting each event with its directory's handle and the
/// entry's name (FAN_REPORT_DFID_NAME), so that one mark on a filesystem covers every directory.
public final class Fanotify: Sendable {
    public let descriptor: Int32
    /// The events marks ask for: renames as one event where the kernel has FAN_RENAME.
    public let mask: FanotifyMask

    static let reportDirectoryHandleAndName: UInt32 = 0x0400 | 0x0800
    static let cloexecNonblock: UInt32 = 0x0000_0001 | 0x0000_0002
    static let markAdd: UInt32 = 0x0000_0001
    static let markRemove: UInt32 = 0x0000_0002
    static let markFilesystem: UInt32 = 0x0000_0100

    public static let watchedEvents: FanotifyMask = [.create, .delete, .modify, .attrib, .closeWrite, .deleteSelf, .moveSelf, .onDirectory]

    /// Fails when the kernel has no fanotify with names (before 5.9) or the process may not use it.
    public init() throws(SystemError) {
        let fd = bfs_fanotify_init(Self.cloexecNonblock | Self.reportDirectoryHandleAndName, UInt32(O_RDONLY | O_CLOEXEC))
        if fd < 0 { throw SystemError.last("fanotify_init") }
        descriptor = fd
        mask = Self.watchedEvents.union(Self.probeRename(fd) ? .rename : [.movedFrom, .movedTo])
    }

    deinit { close(descriptor) }

    /// Whether marks may ask for FAN_RENAME: an inode mark on / with it is refused (EINVAL) by
    /// kernels before 5.17; the probe mark is removed at once.
    private static func probeRename(_ fd: Int32) -> Bool {
        guard bfs_fanotify_mark(fd, markAdd, FanotifyMask.rename.rawValue | FanotifyMask.onDirectory.rawValue, AT_FDCWD, "/") == 0 else { return false }
        _ = bfs_fanotify_mark(fd, markRemove, FanotifyMask.rename.rawValue | FanotifyMask.onDirectory.rawValue, AT_FDCWD, "/")
        return true
    }

    /// Marks the whole filesystem `path` is on. Fails with EPERM without CAP_SYS_ADMIN, EXDEV or
    /// ENODEV on filesystems that cannot be marked whole or give no handles.
    public func markFilesystem(of path: FilePath) throws(SystemError) {
        let result = path.string.withCString { bfs_fanotify_mark(descriptor, Self.markAdd | Self.markFilesystem, mask.rawValue, AT_FDCWD, $0) }
        if result != 0 { throw SystemError.last("fanotify_mark", path: path.string) }
    }

    /// One read of what is queued into `buffer` (whole events only): the bytes read, 0 when
    /// nothing is queued (the descriptor does not block).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            if errno == EAGAIN { return 0 }
            throw SystemError.last("read fanotify")
        }
    }

    /// The events in a buffer read from the group, as values. What cannot be an event (a length
    /// that runs past the buffer, a record shorter than its header) ends the parse: the events
    /// before it stand.
    public static func parse(_ buffer: UnsafeRawBufferPointer) -> [FanotifyEvent] {
        var events: [FanotifyEvent] = []
        forEachEvent(in: buffer) { event in
            events.append(FanotifyEvent(mask: event.mask, directory: event.directory?.handle, name: event.directory?.name,
                                        newDirectory: event.newDirectory?.handle, newName: event.newDirectory?.name))
        }
        return events
    }

    /// Each event in a buffer read from the group, where it lies: nothing is copied or allocated,
    /// so an event the caller drops (a directory it does not know) costs a few loads. Ends where
    /// `parse` ends.
    public static func forEachEvent(in buffer: UnsafeRawBufferPointer, _ body: (FanotifyEventBytes) throws -> Void) rethrows {
        let metadataSize = 24
        var offset = 0
        while offset + metadataSize <= buffer.count {
            let eventLength = Int(buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            let metadataLength = Int(buffer.loadUnaligned(fromByteOffset: offset + 6, as: UInt16.self))
            guard eventLength >= metadataSize, metadataLength >= metadataSize, metadataLength <= eventLength,
                  offset + eventLength <= buffer.count else { return }
            var event = FanotifyEventBytes(mask: FanotifyMask(rawValue: buffer.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
            var record = offset + metadataLength
            let end = offset + eventLength
            while record + 4 <= end {
                let type = buffer[record]
                let length = Int(buffer.loadUnaligned(fromByteOffset: record + 2, as: UInt16.self))
                guard length >= 4, record + length <= end else { break }
                if let directory = FanotifyHandleBytes(record: UnsafeRawBufferPointer(rebasing: buffer[record..<record + length])) {
                    switch type {
                    case 2, 3, 10: event.directory = directory // DFID_NAME, DFID, OLD_DFID_NAME
                    case 12: event.newDirectory = directory // NEW_DFID_NAME
                    default: break
                    }
                }
                record += length
            }
            try body(event)
            offset += eventLength
        }
    }
}

/// An event as it lies in a buffer read from a fanotify group; its bytes are valid only as long
/// as the buffer is (`Fanotify.forEachEvent`).
public struct FanotifyEventBytes {
    public var mask: FanotifyMask
    /// The directory the event happened in (for a rename, the one the entry left).
    public var directory: FanotifyHandleBytes?
    /// For a rename: where the entry went.
    public var newDirectory: FanotifyHandleBytes?

    init(mask: FanotifyMask) { self.mask = mask }
}

/// A handle record in place: header (4), fsid (8), handle_bytes (4), handle_type (4), the handle,
/// then (for the types with a name) the NUL-terminated name.
public struct FanotifyHandleBytes {
    public let fsid: UInt64
    public let type: Int32
    public let handleBytes: UnsafeRawBufferPointer
    /// The entry's name, without its NUL; empty for the directory itself (no name, or ".").
    public let nameBytes: UnsafeRawBufferPointer

    init?(record: UnsafeRawBufferPointer) {
        guard record.count >= 20 else { return nil }
        let handleLength = Int(record.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        guard handleLength <= record.count - 20, handleLength <= DirectoryHandle.capacity else { return nil }
        fsid = UInt64(record.loadUnaligned(fromByteOffset: 4, as: UInt32.self)) | UInt64(record.loadUnaligned(fromByteOffset: 8, as: UInt32.self)) << 32
        type = record.loadUnaligned(fromByteOffset: 16, as: Int32.self)
        handleBytes = UnsafeRawBufferPointer(rebasing: record[20..<20 + handleLength])
        let rest = UnsafeRawBufferPointer(rebasing: record[(20 + handleLength)...])
        let nameLength = rest.firstIndex(of: 0) ?? rest.count
        let isSelf = nameLength == 1 && rest[0] == UInt8(ascii: ".")
        nameBytes = UnsafeRawBufferPointer(rebasing: rest[0..<(isSelf ? 0 : nameLength)])
    }

    /// The handle as a value (no allocation: it is kept inline).
    public var handle: DirectoryHandle { DirectoryHandle(fsid: fsid, type: type, bytes: handleBytes)! }

    /// The entry's name; nil: the event is about the directory itself.
    public var name: FileName? { nameBytes.isEmpty ? nil : FileName(bytes: nameBytes) }
}
