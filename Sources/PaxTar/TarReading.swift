import SystemCalls
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Why a read of the archive failed: never a short read, never padding in place of bytes.
public enum TarReadError: Error {
    /// A member changed since the layout: the archive would be torn (the view answers EIO).
    case changed
    /// A file the reader may not read (EACCES).
    case denied
}

extension TarLayout {
    /// Reads `count` bytes at `offset` of the archive as laid out: a consistent snapshot, or an
    /// error (SPEC.md, "Never a wrong byte"). A directory whose entries changed since the layout
    /// (checked when its header is read), or a file whose inode, size, modification or change time
    /// differ from it (checked around every read of its data), fails the read as `changed`; a file
    /// the reader may not read fails it as `denied`. Never padded, never cut short.
    public func read(offset: Int64, count: Int, files: TarFileSource) throws(TarReadError) -> [UInt8] {
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
                if member.kind == .directory { try files.verifyDirectory(sourcePath(of: member), as: member) }
                let headers = TarHeaders.headers(for: member)
                let from = Int(position - member.offset)
                let to = Int(min(member.dataOffset, end) - member.offset)
                out += headers[from..<to]
                position = member.offset + Int64(to)
                continue
            }
            let dataEnd = min(member.end, end)
            let inFile = position - member.dataOffset
            var wanted = 0
            if inFile < member.size {
                wanted = Int(min(member.size, dataEnd - member.dataOffset) - inFile)
                out += try files.read(member, from: sourcePath(of: member), at: inFile, count: wanted)
            }
            // The zeros that pad the data to a whole block.
            let padding = Int(dataEnd - position) - wanted
            if padding > 0 { out += [UInt8](repeating: 0, count: padding) }
            position = dataEnd
            index = current + 1
        }
        return out
    }
}

/// Where the tar's file data comes from: keeps a few files open for sequential reads, each checked
/// against the layout when opened and after every read.
public final class TarFileSource: Sendable {
    private let open = Mutex<[(path: FilePath, descriptor: Descriptor)]>([])

    public init() {}

    func read(_ member: TarLayout.Member, from path: FilePath, at offset: Int64, count: Int) throws(TarReadError) -> [UInt8] {
        let descriptor = try self.descriptor(path, member)
        guard let bytes = try? descriptor.read(at: offset, count: count), bytes.count == count,
              let after = try? descriptor.status(), Self.isUnchanged(after, member)
        else { throw .changed }
        return bytes
    }

    func verifyDirectory(_ path: FilePath, as member: TarLayout.Member) throws(TarReadError) {
        guard let status = try? FileStatus.of(path), status.type == .directory, status.inode == member.inode,
              status.modificationTime == member.modificationTime, status.changeTime == member.changeTime
        else { throw .changed }
    }

    private func descriptor(_ path: FilePath, _ member: TarLayout.Member) throws(TarReadError) -> Descriptor {
        let result: Result<Descriptor, TarReadError> = self.open.withLock { open in
            if let index = open.firstIndex(where: { $0.path == path }) { return .success(open[index].descriptor) }
            let opened: Descriptor
            do {
                opened = try Descriptor.open(path, flags: Descriptor.readOnly | O_NOFOLLOW | O_NONBLOCK)
            } catch let error as SystemError where error.errno == EACCES || error.errno == EPERM {
                return .failure(.denied)
            } catch {
                return .failure(.changed) // gone, or no longer a file: not what was laid out
            }
            guard let status = try? opened.status(), status.type == .regular, Self.isUnchanged(status, member) else {
                return .failure(.changed)
            }
            open.append((path, opened))
            if open.count > 4 { open.removeFirst() }
            return .success(opened)
        }
        return try result.get()
    }

    static func isUnchanged(_ status: FileStatus, _ member: TarLayout.Member) -> Bool {
        status.inode == member.inode && status.size == member.size && status.modificationTime == member.modificationTime
            && status.changeTime == member.changeTime
    }
}
