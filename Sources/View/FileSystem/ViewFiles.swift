import PaxTar
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// What a READ returns: bytes, or a range of an open file the session can splice.
enum ReadAnswer {
    case bytes([UInt8])
    case file(Descriptor, offset: Int64, count: Int)
}

extension ViewFileSystem {
    /// OPEN, when the kernel asks (it stops asking once told it may open files itself): nothing
    /// is kept per open, since reads go by node; a file that cannot be read fails here as it would
    /// at its first read. Anything asking to write gets EROFS.
    func open(_ id: UInt64, flags: Int32) throws(ViewError) {
        if flags & O_ACCMODE != O_RDONLY || flags & (O_TRUNC | O_CREAT | O_APPEND) != 0 { throw .readOnly }
        let node = try node(id)
        switch node.kind {
        case .source, .raw, .symbolFile: _ = try sourceFile(id, node)
        case .package: _ = try packageLayout(id, node)
        case .info, .icon, .uuidInfo: if syntheticBytes(node.kind, detail: node.detail) == nil { throw .notFound }
        case .control, .byID, .byPath, .bundleView, .resources, .byUUID, .uuidView, .symbols: throw ViewError(code: EISDIR)
        }
    }

    /// READ at any offset, by node: a real file from the descriptor its node keeps, a package's
    /// bytes from the layout its node was looked up with, synthesized bytes as they are now (the
    /// updater drops the kernel's pages when they change).
    func read(_ id: UInt64, offset: Int64, count: Int) throws(ViewError) -> ReadAnswer {
        let node = try node(id)
        switch node.kind {
        case .source, .raw, .symbolFile:
            return .file(try sourceFile(id, node), offset: offset, count: count)
        case .package:
            let (layout, path) = try packageLayout(id, node)
            let files = try tarFiles.value(id, generation: node.generation) { () throws(ViewError) in TarFileSource() }
            do {
                return .bytes(try layout.read(offset: offset, count: count, files: files))
            } catch {
                switch error {
                case .changed:
                    layouts.invalidate(touching: path)
                    packageChanged(id)
                    throw ViewError(code: EIO)
                case .denied:
                    throw ViewError(code: EACCES)
                }
            }
        case .info, .icon, .uuidInfo:
            guard let bytes = syntheticBytes(node.kind, detail: node.detail) else { throw .notFound }
            guard offset < Int64(bytes.count) else { return .bytes([]) }
            let start = Int(offset)
            return .bytes(Array(bytes[start..<min(bytes.count, start + count)]))
        case .control, .byID, .byPath, .bundleView, .resources, .byUUID, .uuidView, .symbols:
            throw ViewError(code: EISDIR)
        }
    }

    /// A real node's file, opened (never following a symlink) at its first read and kept. The file
    /// must be the one looked up: one replaced since, or gone, fails with ESTALE, never serving
    /// another file's bytes.
    func sourceFile(_ id: UInt64, _ node: NodeTable.Node) throws(ViewError) -> Descriptor {
        try openFiles.value(id, generation: node.generation) { () throws(ViewError) in
            let path = try realPath(id)
            let descriptor: Descriptor
            do {
                descriptor = try Descriptor.open(path, flags: Descriptor.readOnly | O_NOFOLLOW | O_NONBLOCK)
            } catch let error as SystemError {
                throw ViewError(code: error.errno == ELOOP || error.errno == ENOENT ? ESTALE : error.errno)
            } catch {
                throw ViewError(code: EIO)
            }
            let expected = node.realFile
            guard let status = try? descriptor.status(), status.inode == expected.inode, status.device == expected.device else {
                throw ViewError(code: ESTALE)
            }
            // A symbol store's file is served only as indexed: not once rewritten in place.
            if case let .symbolFile(file) = node.detail, !file.isUnchanged(status) { throw ViewError(code: ESTALE) }
            if status.type == .directory { throw ViewError(code: EISDIR) }
            return descriptor
        }
    }

    /// The layout a package node serves: the package's as it is now, if that is still the one the
    /// node was looked up with; else the package changed and the node fails with EIO (a new
    /// lookup makes a new node for the new layout).
    func packageLayout(_ id: UInt64, _ node: NodeTable.Node) throws(ViewError) -> (TarLayout, FilePath) {
        let path = try realPath(id)
        guard let layout = try? layouts.layout(of: path), layout.tar.fingerprint == node.version?.fingerprint else {
            packageChanged(id)
            throw ViewError(code: EIO)
        }
        return (layout.tar, path)
    }

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
