public import BundleModel
import CArchive
#if canImport(Glibc)
import Glibc
#endif
public import SystemCalls

/// One pass over an archive with libarchive: members one at a time, and the data of those asked
/// for, within `ArchiveLimits`. Nothing is written anywhere; member names are only data. libarchive
/// reads forward, so each member's data can be read only while it is the current one.
public final class ArchiveReader {
    private let handle: OpaquePointer
    /// What the archive is read from: a file kept open while reading, or, for an installer's
    /// payload, the current member of another reader.
    private let file: Descriptor?
    private let payload: PayloadFeed?
    public let limits: ArchiveLimits
    /// On the monotonic clock; shared by the passes over one archive.
    public let deadline: Double
    /// Members whose names climb out of the archive (`..`): not listed, counted.
    public private(set) var unsafeNames = 0
    /// Members whose names are longer than `limits.nameBytes`: not listed, counted.
    public private(set) var longNames = 0
    public private(set) var membersListed = 0
    private var dataRead: Int64 = 0
    /// What payloads read inside this archive's members decompressed (rule 33): the archive's budget.
    fileprivate var payloadBytes: Int64 = 0
    /// The current member's bytes read so far.
    private var memberRead: Int64 = 0
    /// Bytes an earlier pass over the same archive decompressed: the budget is the archive's.
    private let earlierBytes: Int64
    private var current: ArchiveMember?
    /// Whether the current member's data has been read to its end.
    private var currentConsumed = true

    /// Opens an archive already open as `file` (kept open while reading). A second pass over the
    /// same archive passes the first's `deadline` and `decompressedBytes`, so that the limits hold
    /// for the archive, not for each pass.
    public init(_ file: Descriptor, limits: ArchiveLimits = .standard, deadline: Double? = nil, earlierBytes: Int64 = 0) throws(ArchiveError) {
        let deadline = deadline ?? Clocks.monotonicSeconds() + limits.seconds
        if let refusal = ZipDirectory.refusal(of: file, limit: limits.members) { throw ArchiveError(refusal) }
        if let refusal = XarTableOfContents.refusal(of: file, limits: limits, deadline: deadline) { throw ArchiveError(refusal) }
        guard let handle = archive_read_new() else { throw ArchiveError("libarchive could not start") }
        archive_read_support_filter_all(handle)
        // The formats rule 26 names; rar, 7-zip, ISO and the rest are not looked into.
        archive_read_support_format_zip(handle)
        archive_read_support_format_tar(handle)
        archive_read_support_format_gnutar(handle)
        // A xar only as it is on disk, where its table of contents was judged above: behind a
        // compression filter libarchive would read a hostile table no check of ours had seen.
        if XarTableOfContents.isXar(file) { archive_read_support_format_xar(handle) }
        archive_read_support_format_cpio(handle)
        self.handle = handle
        self.file = file
        self.payload = nil
        self.limits = limits
        self.deadline = deadline
        self.earlierBytes = earlierBytes
        guard archive_read_open_fd(handle, file.rawValue, 64 * 1024) == ARCHIVE_OK else {
            // Every property is set, so deinit runs and frees the handle.
            throw ArchiveError("not an archive bundlefs reads: \(Self.message(handle))")
        }
    }

    /// The cpio archive in `outer`'s current member (rule 33: an installer's `Payload`, gzip, bzip2
    /// or xz compressed), read as that member's data is read: forward, once, never written
    /// anywhere. `outer`'s deadline and byte budget hold for both; what the payload decompresses
    /// counts in `outer`'s budget when it is done. Apple's `pbzx` is refused with an error.
    public init(payloadOf outer: ArchiveReader) throws(ArchiveError) {
        let feed = PayloadFeed(outer: outer)
        let start = try feed.first()
        guard !start.isEmpty else { throw ArchiveError("the payload is empty") }
        guard !start.starts(with: Array("pbzx".utf8)) else {
            throw ArchiveError("the payload is compressed with Apple's pbzx, which bundlefs does not read")
        }
        guard let handle = archive_read_new() else { throw ArchiveError("libarchive could not start") }
        archive_read_support_filter_all(handle)
        archive_read_support_format_cpio(handle)
        self.handle = handle
        self.file = nil
        self.payload = feed
        self.limits = outer.limits
        self.deadline = outer.deadline
        self.earlierBytes = outer.decompressedBytes
        let opened = archive_read_open(handle, Unmanaged.passUnretained(feed).toOpaque(), nil, { _, context, buffer in
            guard let context, let buffer else { return -1 }
            return Unmanaged<PayloadFeed>.fromOpaque(context).takeUnretainedValue().next(buffer)
        }, nil)
        guard opened == ARCHIVE_OK else {
            throw ArchiveError("the payload is not a cpio archive bundlefs reads: \(feed.failure?.description ?? Self.message(handle))")
        }
    }

    deinit {
        payload?.outer.payloadBytes += passBytes
        archive_read_free(handle)
    }

    /// The format libarchive found (`ZIP 2.0 (deflation)`, `POSIX pax interchange format`, ...).
    public var formatName: String { archive_format_name(handle).map { String(cString: $0) } ?? "unknown" }

    /// libarchive converts names through the thread's locale: a C locale cannot hold a UTF-8
    /// name (a zip's flagged names come back as nothing), so names are read under C.UTF-8.
    nonisolated(unsafe) private static let utf8Locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil)

    /// The next member, or nil at the end.
    public func next() throws(ArchiveError) -> ArchiveMember? {
        let previous = Self.utf8Locale.map { uselocale($0) }
        defer { if let previous { uselocale(previous) } }
        try finishCurrent()
        while true {
            try checkTime()
            var entry: OpaquePointer?
            let status = archive_read_next_header(handle, &entry)
            if status == ARCHIVE_EOF { current = nil; return nil }
            if status == ARCHIVE_RETRY { continue }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
                throw ArchiveError("after \(membersListed) members: \(failure)")
            }
            membersListed += 1
            guard membersListed <= limits.members else { throw ArchiveError("more than \(limits.members) members; the rest is not read") }
            try checkBudget()
            // UTF-8 when the archive says so (zip's flag, pax headers), else the raw bytes.
            guard let name = archive_entry_pathname_utf8(entry) ?? archive_entry_pathname(entry) else {
                unsafeNames += 1
                continue
            }
            let raw = Self.bytes(name)
            guard raw.count <= limits.nameBytes else {
                longNames += 1
                continue
            }
            guard let path = ArchiveMember.normalized(raw) else {
                // The archive's own top (`.`, which `find . | cpio -o` writes first) is no member.
                if !ArchiveMember.isTop(raw) { unsafeNames += 1 }
                continue
            }
            let type: FileType = switch archive_entry_filetype(entry) {
            case S_IFREG: .regular // libarchive's AE_IF* are these values; its macros do not import
            case S_IFDIR: .directory
            case S_IFLNK: .symlink
            default: .unknown
            }
            let target = archive_entry_symlink(entry).map { FilePath(bytes: Self.bytes($0)) }
            let member = ArchiveMember(
                path: path, type: type, size: archive_entry_size_is_set(entry) != 0 ? archive_entry_size(entry) : 0,
                permissions: UInt32(archive_entry_perm(entry)), modificationTime: Int64(archive_entry_mtime(entry)),
                linkTarget: target, isEncrypted: archive_entry_is_encrypted(entry) != 0, sizeIsKnown: archive_entry_size_is_set(entry) != 0)
            current = member
            currentConsumed = false
            memberRead = 0
            return member
        }
    }

    /// The current member's data, at most `limit` bytes.
    public func read(limit: Int) throws(ArchiveError) -> [UInt8] {
        var bytes: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, min(64 * 1024, limit)), alignment: 16)
        defer { chunk.deallocate() }
        while bytes.count < limit {
            let wanted = min(chunk.count, limit - bytes.count)
            let count = try readChunk(into: UnsafeMutableRawBufferPointer(rebasing: chunk[..<wanted]))
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        return bytes
    }

    /// The current member's next bytes, as many as fit in `buffer` or fewer; 0 at its end.
    func readChunk(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        guard let member = current else { throw ArchiveError("no member to read") }
        guard !member.isEncrypted else { throw ArchiveError("\(member.path) is encrypted") }
        try checkTime()
        // No more than the header says: libarchive's xar reader hands a second member's data
        // padded with as many zeros as the first member had bytes.
        let left = member.sizeIsKnown ? Int(clamping: max(0, member.size - memberRead)) : Int.max
        let wanted = min(buffer.count, left)
        let count = wanted == 0 ? 0 : archive_read_data(handle, buffer.baseAddress, wanted)
        if count == 0 { currentConsumed = true; return 0 }
        guard count > 0 else { throw ArchiveError("\(member.path): \(failure)") }
        dataRead += Int64(count)
        memberRead += Int64(count)
        try checkBudget()
        return count
    }

    /// A forward-only byte source over the current member, for header readers whose reads move
    /// forward (a Mach-O header, its load commands, then its signature near the end).
    public func memberSource() -> some ByteSource { ForwardMemberSource(reader: self, size: UInt64(max(0, current?.size ?? 0))) }

    /// Skips `count` bytes of the current member's data (decompressing them).
    func skip(_ count: Int) throws(ArchiveError) {
        var left = count
        while left > 0 {
            let piece = try read(limit: min(left, 1 << 20))
            if piece.isEmpty { throw ArchiveError("\(current?.path.string ?? "member") ends early") }
            left -= piece.count
        }
    }

    /// libarchive skips what is left of a member inside `archive_read_next_header`, where no limit
    /// can stop it: in a compressed stream that skip decompresses everything (80 KB of `.tar.bz2`
    /// hold 64 GiB), so the rest is read here, block by block, within the limits. Uncompressed
    /// streams and zip members are skipped by seeking, which costs nothing.
    private func finishCurrent() throws(ArchiveError) {
        guard current != nil, !currentConsumed, archive_filter_count(handle) > 1 else { return }
        currentConsumed = true
        var block: UnsafeRawPointer?
        var size = 0
        var offset: la_int64_t = 0
        while true {
            try checkTime()
            let status = archive_read_data_block(handle, &block, &size, &offset)
            if status == ARCHIVE_EOF { return }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN else {
                throw ArchiveError("after \(membersListed) members: \(failure)")
            }
            try checkBudget()
        }
    }

    /// Bytes decompressed so far by this pass and those before it.
    public var decompressedBytes: Int64 { earlierBytes + passBytes }

    private var passBytes: Int64 { (archive_filter_count(handle) > 1 ? archive_filter_bytes(handle, 0) : 0) + dataRead + payloadBytes }

    /// Why libarchive stopped: for a payload, what stopped its member's reader first.
    private var failure: String { payload?.failure?.description ?? Self.message(handle) }

    private func checkTime() throws(ArchiveError) {
        guard Clocks.monotonicSeconds() <= deadline else { throw ArchiveError(Self.timeError(limits)) }
    }

    static func timeError(_ limits: ArchiveLimits) -> String { "reading took more than \(Int(limits.seconds)) s; stopped" }

    /// Decompressed bytes (the filters' output, or member data) against what was read from the
    /// file: a bomb shows as a ratio no real archive has.
    private func checkBudget() throws(ArchiveError) {
        let decompressed = passBytes
        let compressed = max(1, archive_filter_bytes(handle, -1))
        guard earlierBytes + decompressed <= limits.uncompressedBytes else {
            throw ArchiveError("more than \(limits.uncompressedBytes >> 20) MiB decompressed; stopped")
        }
        guard decompressed < 1 << 20 || decompressed <= limits.compressionRatio * compressed else {
            throw ArchiveError("\(decompressed / compressed)-fold compression (a zip bomb?); stopped after \(decompressed >> 20) MiB")
        }
    }

    static func message(_ handle: OpaquePointer) -> String {
        archive_error_string(handle).map { String(cString: $0) } ?? "unknown error"
    }

    static func bytes(_ text: UnsafePointer<CChar>) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: text, count: strlen(text)).bindMemory(to: UInt8.self))
    }
}

/// Feeds a payload's reader (`ArchiveReader(payloadOf:)`) from the outer reader's current member,
/// 64 KiB at a time. An error of the outer reader (its clock, its budget, a damaged member) is kept
/// for the message: libarchive only hears that the read failed.
final class PayloadFeed {
    let outer: ArchiveReader
    private(set) var failure: ArchiveError?
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    /// Bytes read to look at the payload's start, handed to libarchive first.
    private var pending = 0

    init(outer: ArchiveReader) { self.outer = outer }
    deinit { buffer.deallocate() }

    /// The payload's first bytes (up to 64 KiB), kept for libarchive's first read.
    func first() throws(ArchiveError) -> UnsafeRawBufferPointer {
        pending = try outer.readChunk(into: buffer)
        return UnsafeRawBufferPointer(rebasing: buffer[..<pending])
    }

    func next(_ start: UnsafeMutablePointer<UnsafeRawPointer?>) -> la_ssize_t {
        start.pointee = UnsafeRawPointer(buffer.baseAddress)
        if pending > 0 {
            defer { pending = 0 }
            return la_ssize_t(pending)
        }
        do {
            return la_ssize_t(try outer.readChunk(into: buffer))
        } catch {
            failure = failure ?? error
            return -1
        }
    }
}

/// Reads of the current member for a header reader: its first 16 KiB are kept (a header is read
/// again as each structure is parsed), beyond them reads must move forward, as libarchive does.
final class ForwardMemberSource: ByteSource {
    static let headSize = 16 * 1024
    let reader: ArchiveReader
    let size: UInt64
    private var head: [UInt8]?
    /// Where the member's stream stands.
    private var position: UInt64 = 0
    /// The last bytes read past the head, served again if asked (a structure read twice).
    private var last: (offset: UInt64, bytes: [UInt8]) = (0, [])

    init(reader: ArchiveReader, size: UInt64) {
        self.reader = reader
        self.size = size
    }

    func read(at offset: UInt64, count: Int) throws -> ArraySlice<UInt8> {
        if head == nil {
            head = try reader.read(limit: Int(min(size, UInt64(Self.headSize))))
            position = UInt64(head!.count)
        }
        let head = self.head!
        if offset + UInt64(count) <= UInt64(head.count) { return head[Int(offset)..<(Int(offset) + count)] }
        if offset >= last.offset, offset + UInt64(count) <= last.offset + UInt64(last.bytes.count) {
            let start = Int(offset - last.offset)
            return last.bytes[start..<(start + count)]
        }
        guard offset >= position else { throw ArchiveError("headers out of order in an archived file (at \(offset), after \(position))") }
        try reader.skip(Int(offset - position))
        let bytes = try reader.read(limit: count)
        position = offset + UInt64(bytes.count)
        last = (offset, bytes)
        return bytes[...]
    }
}
