import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// How an open file of the view is answered.
struct OpenAnswer {
    var handle: UInt64
    /// The kernel may keep pages cached from an earlier open (it is told when the file changes).
    var keepCache: Bool
    /// Reads bypass the page cache (synthesized bytes whose size may change at any moment).
    var directIO: Bool
}

/// What a READ returns: bytes, or a range of an open file the session can splice.
enum ReadAnswer {
    case bytes([UInt8])
    case file(Descriptor, offset: Int64, count: Int)
}

extension ViewFileSystem {
    /// OPEN: real files are opened read-only (never following a symlink), packages laid out,
    /// Info.plist views generated. Anything asking to write gets EROFS.
    func open(_ id: UInt64, flags: Int32) throws(ViewError) -> OpenAnswer {
        if flags & O_ACCMODE != O_RDONLY || flags & (O_TRUNC | O_CREAT | O_APPEND) != 0 { throw .readOnly }
        let node = try node(id)
        switch node.kind {
        case .source, .raw:
            let path = try realPath(id)
            let descriptor: Descriptor
            do {
                descriptor = try Descriptor.open(path, flags: Descriptor.readOnly | O_NOFOLLOW | O_NONBLOCK)
            } catch let error as SystemError {
                throw ViewError(code: error.errno == ELOOP ? ENOENT : error.errno)
            } catch {
                throw ViewError(code: EIO)
            }
            guard let status = try? descriptor.status(), status.inode == node.inode, status.device == node.device else { throw .notFound }
            if status.type == .directory { throw ViewError(code: EISDIR) }
            return OpenAnswer(handle: handles.add(.file(descriptor)), keepCache: node.kind == .source, directIO: false)
        case .package:
            let path = try realPath(id)
            let layout: TarLayout
            do { layout = try layouts.layout(of: path) } catch { throw .notFound }
            // The kernel's pages of this node are the previous open's layout: kept only if this is it.
            // (Forgetting them all now and then costs one reread each, and bounds the table.)
            let previous = servedLayouts.withLock { served in
                if served.count >= 65_536 { served.removeAll() }
                return served.updateValue(layout.serial, forKey: id)
            }
            return OpenAnswer(handle: handles.add(.package(PackageHandle(layout: layout, path: path, node: id))),
                              keepCache: previous == layout.serial, directIO: false)
        case .info, .icon:
            guard let bytes = syntheticBytes(node.kind, detail: node.detail) else { throw .notFound }
            return OpenAnswer(handle: handles.add(.bytes(bytes)), keepCache: false, directIO: true)
        case .control, .byID, .byPath, .bundleView, .resources:
            throw ViewError(code: EISDIR)
        }
    }

    /// READ at any offset: a package's bytes are computed from its layout, the same whether read
    /// sequentially or not.
    func read(_ handle: UInt64, offset: Int64, count: Int) throws(ViewError) -> ReadAnswer {
        switch handles.handle(handle) {
        case let .file(descriptor)?:
            return .file(descriptor, offset: offset, count: count)
        case let .package(package)?:
            do {
                return .bytes(try package.layout.read(offset: offset, count: count, files: package.files))
            } catch {
                // It changed since it was laid out: the next open lays it out again, and the
                // kernel forgets the size and pages it has.
                if error.code == EIO { packageChanged(package) }
                throw error
            }
        case let .bytes(bytes)?:
            guard offset < Int64(bytes.count) else { return .bytes([]) }
            let start = Int(offset)
            return .bytes(Array(bytes[start..<min(bytes.count, start + count)]))
        case .directory?, nil:
            throw ViewError(code: EBADF)
        }
    }

    func release(_ handle: UInt64) { handles.remove(handle) }

    /// READLINK: the link's text, unchanged.
    func readLink(_ id: UInt64) throws(ViewError) -> FilePath {
        let node = try node(id)
        guard node.kind == .source || node.kind == .raw else { throw ViewError(code: EINVAL) }
        let path = try realPath(id)
        return try ViewError.translating {
            try Descriptor.open(path.parent, flags: O_PATH_DIRECTORY).readLink(path.lastComponent)
        }
    }

    /// STATFS: the source's file system, read-only.
    func fileSystemStatus() throws(ViewError) -> statvfs {
        var status = statvfs()
        let result = (try? source.path.withCString { statvfs($0, &status) }) ?? -1
        if result != 0 { throw ViewError(code: errno) }
        status.f_flag |= UInt(ST_RDONLY)
        return status
    }
}
