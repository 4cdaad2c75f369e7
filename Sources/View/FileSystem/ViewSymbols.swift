import BundleModel
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// `.bundlefs/symbols` (`SymbolStores`): its directories are synthesized; its files are the real
/// DWARF files and executables, read through their own descriptors as real items are, with the
/// owner, group and mode their bundles and directories allow.
extension ViewFileSystem {
    func lookUpSymbol(_ name: FileName, in path: SymbolPath, parent: UInt64) -> EntryAnswer {
        switch symbols.step(name.string, in: path) {
        case let .directory(child)?:
            return synthesized(.symbols, detail: .symbolPath(child), parent: parent, name: name)
        case let .file(file, _, status, match)?:
            return symbolFileEntry(file, status: status, match: match, statuses: StatusMemo())
        case nil:
            return .negative(timeout: timeouts.synthesized)
        }
    }

    /// The READDIRPLUS entry of a listed child, from what its listing found: a file is not
    /// looked for (opened) again.
    func symbolEntry(_ child: SymbolStores.Child, parent: UInt64, lookups: ListingLookups) -> EntryAnswer {
        switch child {
        case let .directory(name, path):
            return synthesized(.symbols, detail: .symbolPath(path), parent: parent, name: FileName(name), lookups: lookups)
        case let .file(_, file, status, match):
            return symbolFileEntry(file, status: status, match: match, statuses: lookups.statuses)
        }
    }

    /// Named by its real path, as by-uuid's files are, so that reads find it.
    private func symbolFileEntry(_ file: SymbolStoreFile, status: FileStatus, match: DebugSymbols.Match, statuses: StatusMemo) -> EntryAnswer {
        let (id, generation) = nodes.lookUp(.synthesized(.symbolFile, detail: .symbolFile(file)), parent: 0, name: FileName(file.found.path.string))
        let attributes = Attributes.symbolFile(status, access: symbolFileAccess(status, match: match, statuses: statuses))
        return EntryAnswer(id: id, generation: generation, attributes: attributes, timeout: timeouts.synthesized)
    }

    /// A symbol file's attributes: the file it was looked up as (from the descriptor its reads
    /// keep, else from its path), while the catalogue still serves that image's file.
    func symbolFileAttributes(_ id: UInt64, _ node: NodeTable.Node) throws(ViewError) -> stat {
        guard case let .symbolFile(file) = node.detail, let match = symbols.match(file.role, key: file.key) else { throw .notFound }
        let status: FileStatus
        if let descriptor = openFiles.existing(id, generation: node.generation), let open = try? descriptor.status() {
            status = open
        } else {
            guard let now = try? FileStatus.of(try realPath(id)), file.isUnchanged(now) else { throw .notFound }
            status = now
        }
        return Attributes.symbolFile(status, access: symbolFileAccess(status, match: match))
    }
}

extension Attributes {
    /// A real file's attributes with the access a symbol store allows.
    static func symbolFile(_ status: FileStatus, access: Access) -> stat {
        var attributes = of(status)
        attributes.st_uid = access.userID
        attributes.st_gid = access.groupID
        attributes.st_mode = S_IFREG | access.mode
        return attributes
    }
}

extension NodeTable.Node {
    /// The real file a node reads: a symbol file's is the one it was looked up as.
    var realFile: (device: UInt64, inode: UInt64) {
        if case let .symbolFile(file) = detail { return (file.device, file.inode) }
        return (device, inode)
    }
}
