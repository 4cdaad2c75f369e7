import CFuse
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The low-level operations table: one small C-callable function per request, each handing the
/// request to `ViewFileSystem` and turning its answer into a libfuse reply. Requests that would
/// write are refused with EROFS (the mount is read-only too, so the kernel usually refuses first).
enum FuseOperations {
    static func table() -> fuse_lowlevel_ops {
        var ops = fuse_lowlevel_ops()
        ops.`init` = { userdata, connection in
            guard let connection, let userdata else { return }
            let fs = Unmanaged<ViewFileSystem>.fromOpaque(userdata).takeUnretainedValue()
            let (directories, files) = FuseOperations.negotiate(connection)
            fs.kernelOpensDirectories.store(directories, ordering: .releasing)
            fs.kernelOpensFiles.store(files, ordering: .releasing)
        }
        ops.lookup = { request, parent, name in
            guard let request, let name else { return }
            FuseOperations.fileSystem(request).requests.count(.lookup)
            let fs = FuseOperations.fileSystem(request)
            do {
                FuseOperations.replyEntry(request, try fs.lookUp(FileName(FileNameCoding.string(cString: name)), in: parent))
            } catch {
                fuse_reply_err(request, error.code)
            }
        }
        ops.forget = { request, id, count in
            guard let request else { return }
            FuseOperations.fileSystem(request).requests.count(.forget)
            FuseOperations.fileSystem(request).forget(id, count: count)
            fuse_reply_none(request)
        }
        ops.forget_multi = { request, count, forgets in
            guard let request else { return }
            FuseOperations.fileSystem(request).requests.count(.forget)
            let fs = FuseOperations.fileSystem(request)
            if let forgets {
                for index in 0..<count { fs.forget(forgets[index].ino, count: forgets[index].nlookup) }
            }
            fuse_reply_none(request)
        }
        ops.getattr = { request, id, _ in
            guard let request else { return }
            FuseOperations.fileSystem(request).requests.count(.getattr)
            do {
                var (attributes, timeout) = try FuseOperations.fileSystem(request).attributes(of: id)
                fuse_reply_attr(request, &attributes, timeout)
            } catch {
                fuse_reply_err(request, error.code)
            }
        }
        ops.readlink = { request, id in
            guard let request else { return }
            FuseOperations.fileSystem(request).requests.count(.readlink)
            do {
                let target = try FuseOperations.fileSystem(request).readLink(id)
                _ = try? target.withCString { fuse_reply_readlink(request, $0) }
            } catch {
                fuse_reply_err(request, error.code)
            }
        }
        ops.opendir = { request, id, info in
            guard let request, let info else { return }
            FuseOperations.fileSystem(request).requests.count(.opendir)
            let fs = FuseOperations.fileSystem(request)
            // The kernel can open directories itself: saying so once spares an OPENDIR and a
            // RELEASEDIR per directory for the rest of the mount (READDIR then has no handle).
            if fs.kernelOpensDirectories.load(ordering: .acquiring) {
                fuse_reply_err(request, ENOSYS)
                return
            }
            do {
                let snapshot = try fs.openDirectory(id)
                info.pointee.fh = fs.handles.add(.directory(snapshot))
                // The kernel may cache the entries and keep them across opens: the watcher's
                // invalidation of the directory drops them when it changes.
                info.pointee.cache_readdir = 1
                info.pointee.keep_cache = fs.node(orNil: id)?.kind == .source ? 1 : 0
                fuse_reply_open(request, info)
            } catch {
                fuse_reply_err(request, error.code)
            }
        }
        ops.readdir = { request, id, size, offset, info in
            guard let request, let info else { return }
            FuseOperations.fileSystem(request).requests.count(.readdir)
            FuseOperations.readDirectory(request, id: id, size: size, offset: offset, handle: info.pointee.fh, plus: false)
        }
        ops.readdirplus = { request, id, size, offset, info in
            guard let request, let info else { return }
            FuseOperations.fileSystem(request).requests.count(.readdirplus)
            FuseOperations.readDirectory(request, id: id, size: size, offset: offset, handle: info.pointee.fh, plus: true)
        }
        ops.releasedir = { request, _, info in
            guard let request else { return }
            FuseOperations.fileSystem(request).requests.count(.releasedir)
            if let info { FuseOperations.fileSystem(request).handles.remove(info.pointee.fh) }
            fuse_reply_err(request, 0)
        }
        ops.open = { request, id, info in
            guard let request, let info else { return }
            FuseOperations.fileSystem(request).requests.count(.open)
            let fs = FuseOperations.fileSystem(request)
            // The kernel can open files itself: saying so once spares an OPEN and a RELEASE per
            // open for the rest of the mount, and the kernel keeps pages across opens as with
            // keep_cache (the updater tells it what changed).
            if fs.kernelOpensFiles.load(ordering: .acquiring) {
                fuse_reply_err(request, ENOSYS)
                return
            }
            do {
                try fs.open(id, flags: info.pointee.flags)
                info.pointee.fh = 0
                info.pointee.keep_cache = 1
                fuse_reply_open(request, info)
            } catch {
                fuse_reply_err(request, error.code)
            }
        }
        ops.read = { request, id, size, offset, _ in
            guard let request else { return }
            FuseOperations.fileSystem(request).requests.count(.read)
            do {
                switch try FuseOperations.fileSystem(request).read(id, offset: Int64(offset), count: size) {
                case let .bytes(bytes):
                    bytes.withUnsafeBytes { _ = fuse_reply_buf(request, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count) }
                case let .file(descriptor, offset, count):
                    var vector = fuse_bufvec()
                    vector.count = 1
                    vector.buf.size = count
                    vector.buf.flags = fuse_buf_flags(FUSE_BUF_IS_FD.rawValue | FUSE_BUF_FD_SEEK.rawValue)
                    vector.buf.fd = descriptor.rawValue
                    vector.buf.pos = off_t(offset)
                    withExtendedLifetime(descriptor) { _ = fuse_reply_data(request, &vector, fuse_buf_copy_flags(0)) }
                }
            } catch {
                fuse_reply_err(request, error.code)
            }
        }
        ops.release = { request, _, _ in
            guard let request else { return }
            FuseOperations.fileSystem(request).requests.count(.release)
            fuse_reply_err(request, 0)
        }
        ops.statfs = { request, _ in
            guard let request else { return }
            FuseOperations.fileSystem(request).requests.count(.statfs)
            do {
                var status = try FuseOperations.fileSystem(request).fileSystemStatus()
                fuse_reply_statfs(request, &status)
            } catch {
                fuse_reply_err(request, error.code)
            }
        }
        ops.getxattr = { request, id, name, size in
            guard let request, let name else { return }
            FuseOperations.fileSystem(request).requests.count(.getxattr)
            do {
                let value = try FuseOperations.fileSystem(request).extendedAttribute(String(cString: name), of: id)
                FuseOperations.replyXattr(request, value, size: size)
            } catch {
                fuse_reply_err(request, error.code)
            }
        }
        ops.listxattr = { request, id, size in
            guard let request else { return }
            FuseOperations.fileSystem(request).requests.count(.listxattr)
            do {
                let names = try FuseOperations.fileSystem(request).extendedAttributeNames(of: id)
                FuseOperations.replyXattr(request, names.flatMap { Array($0.utf8) + [0] }, size: size)
            } catch {
                fuse_reply_err(request, error.code)
            }
        }
        ops.setattr = { request, _, _, _, _ in if let request { fuse_reply_err(request, EROFS) } }
        ops.mknod = { request, _, _, _, _ in if let request { fuse_reply_err(request, EROFS) } }
        ops.mkdir = { request, _, _, _ in if let request { fuse_reply_err(request, EROFS) } }
        ops.unlink = { request, _, _ in if let request { fuse_reply_err(request, EROFS) } }
        ops.rmdir = { request, _, _ in if let request { fuse_reply_err(request, EROFS) } }
        ops.symlink = { request, _, _, _ in if let request { fuse_reply_err(request, EROFS) } }
        ops.rename = { request, _, _, _, _, _ in if let request { fuse_reply_err(request, EROFS) } }
        ops.link = { request, _, _, _ in if let request { fuse_reply_err(request, EROFS) } }
        ops.write = { request, _, _, _, _, _ in if let request { fuse_reply_err(request, EROFS) } }
        ops.create = { request, _, _, _, _ in if let request { fuse_reply_err(request, EROFS) } }
        ops.setxattr = { request, _, _, _, _, _ in if let request { fuse_reply_err(request, EROFS) } }
        ops.removexattr = { request, _, _ in if let request { fuse_reply_err(request, EROFS) } }
        ops.fallocate = { request, _, _, _, _, _ in if let request { fuse_reply_err(request, EROFS) } }
        return ops
    }

    static func fileSystem(_ request: fuse_req_t) -> ViewFileSystem {
        Unmanaged<ViewFileSystem>.fromOpaque(fuse_req_userdata(request)!).takeUnretainedValue()
    }

    /// What the view asks of the kernel: attributes with directory entries, symlinks and
    /// directory contents cached, lookups in one directory in parallel, data invalidated when
    /// attributes say a file changed, directories and files opened without asking. Returns
    /// whether the kernel opens directories and files itself.
    static func negotiate(_ connection: UnsafeMutablePointer<fuse_conn_info>) -> (directories: Bool, files: Bool) {
        let wanted = UInt32(FUSE_CAP_READDIRPLUS) | UInt32(FUSE_CAP_READDIRPLUS_AUTO) | UInt32(FUSE_CAP_CACHE_SYMLINKS)
            | UInt32(FUSE_CAP_PARALLEL_DIROPS) | UInt32(FUSE_CAP_AUTO_INVAL_DATA) | UInt32(FUSE_CAP_ASYNC_READ)
            | UInt32(FUSE_CAP_SPLICE_WRITE) | UInt32(FUSE_CAP_SPLICE_MOVE) | UInt32(FUSE_CAP_NO_OPENDIR_SUPPORT)
            | UInt32(FUSE_CAP_NO_OPEN_SUPPORT)
        connection.pointee.want |= wanted & connection.pointee.capable
        connection.pointee.time_gran = 1
        return (connection.pointee.want & UInt32(FUSE_CAP_NO_OPENDIR_SUPPORT) != 0,
                connection.pointee.want & UInt32(FUSE_CAP_NO_OPEN_SUPPORT) != 0)
    }

    static func entryParameters(_ answer: EntryAnswer) -> fuse_entry_param {
        var parameters = fuse_entry_param()
        parameters.ino = answer.id
        parameters.generation = answer.generation
        parameters.attr = answer.attributes
        parameters.attr_timeout = answer.timeout
        parameters.entry_timeout = answer.timeout
        return parameters
    }

    static func replyEntry(_ request: fuse_req_t, _ answer: EntryAnswer) {
        var parameters = entryParameters(answer)
        if fuse_reply_entry(request, &parameters) != 0 && answer.id != 0 {
            // The kernel never got it (the request was interrupted): it will not forget it.
            fileSystem(request).forget(answer.id, count: 1)
        }
    }

    static func replyXattr(_ request: fuse_req_t, _ value: [UInt8], size: Int) {
        if size == 0 {
            fuse_reply_xattr(request, value.count)
        } else if value.count > size {
            fuse_reply_err(request, ERANGE)
        } else {
            value.withUnsafeBytes { _ = fuse_reply_buf(request, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count) }
        }
    }

    /// READDIR and READDIRPLUS from an opendir snapshot: `.` and `..` at offsets 1 and 2, then
    /// item i at offset i + 3. With plus, each entry that fits counts one lookup of its node.
    static func readDirectory(_ request: fuse_req_t, id: UInt64, size: Int, offset: off_t, handle: UInt64, plus: Bool) {
        let fs = fileSystem(request)
        let snapshot: DirectorySnapshot
        if case let .directory(opened)? = fs.handles.handle(handle) {
            snapshot = opened
        } else if fs.kernelOpensDirectories.load(ordering: .acquiring) {
            do {
                snapshot = try fs.directorySnapshots.snapshot(of: id, offset: Int(offset)) { () throws(ViewError) in try fs.openDirectory(id) }
            } catch {
                fuse_reply_err(request, error.code)
                return
            }
        } else {
            fuse_reply_err(request, EBADF)
            return
        }
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(size, 1))
        defer { buffer.deallocate() }
        var used = 0
        var counted: [UInt64] = []
        var position = Int(offset)
        while position < snapshot.items.count + 2 {
            let next = off_t(position + 1)
            let name: FileName
            var attributes = stat()
            var item: DirectorySnapshot.Item?
            if position < 2 {
                name = position == 0 ? "." : ".."
                attributes.st_mode = S_IFDIR
                attributes.st_ino = UInt(position == 0 ? id : 1)
            } else {
                let current = snapshot.items[position - 2]
                item = current
                name = current.name
                attributes.st_mode = current.type.modeBits
                attributes.st_ino = UInt(current.inode)
            }
            let added: Int? = try? FileNameCoding.withCString(name.string) { cName -> Int? in
                let remaining = size - used
                guard plus else {
                    let needed = fuse_add_direntry(request, buffer + used, remaining, cName, &attributes, next)
                    return needed <= remaining ? needed : nil
                }
                var parameters = fuse_entry_param()
                parameters.attr = attributes
                let needed = fuse_add_direntry_plus(request, nil, 0, cName, &parameters, next)
                guard needed <= remaining else { return nil }
                if let item, let answer = fs.plusEntry(item, in: snapshot, directory: id) {
                    fs.requests.count(.plusEntry)
                    parameters = entryParameters(answer)
                    if answer.id != 0 { counted.append(answer.id) }
                }
                return fuse_add_direntry_plus(request, buffer + used, remaining, cName, &parameters, next)
            } ?? nil
            guard let added else { break }
            used += added
            position += 1
        }
        // Without OPENDIR there is no RELEASEDIR to say a pass is over: the read past its last
        // entry (the empty reply that ends every pass) does, and its snapshot goes (a million
        // entries kept would be hundreds of megabytes). Forgotten any earlier, that read built
        // the whole listing again only to send nothing: twice the work of a small directory.
        if position >= snapshot.items.count + 2, used == 0, fs.kernelOpensDirectories.load(ordering: .acquiring) {
            fs.directorySnapshots.forget(id)
        }
        if fuse_reply_buf(request, buffer, used) != 0 {
            for node in counted { fs.forget(node, count: 1) }
        }
    }
}

extension ViewFileSystem {
    func node(orNil id: UInt64) -> NodeTable.Node? { nodes.node(id) }
}

extension Error {
    /// The errno for a failed request.
    var code: Int32 { (self as? ViewError)?.code ?? EIO }
}
