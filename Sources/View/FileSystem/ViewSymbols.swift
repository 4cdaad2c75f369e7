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

    /// A directory's listing, made ahead if a walk's listing above it was answered just before.
    /// Below a layout's top level only: a listing made ahead reads no range of the catalogue,
    /// only the one the listing above it read (a top level names 256 ranges).
    func symbolListing(_ path: SymbolPath) -> SymbolListing {
        let listing = symbolReadAhead.take(path, version: symbols.generation).map { made in
            requests.count(.readAheadUsed)
            return made
        } ?? SymbolListing(children: symbols.children(of: path), lookups: ListingLookups())
        if path.depth >= 1 { readAhead(below: listing) }
        return listing
    }

    /// Makes the listings of a listing's subdirectories ahead (`ReadAhead`), and in turn those
    /// below them, in the order a walk asks for them, when there are enough of them to be worth
    /// waking a thread for. `unified`'s folders of two digits hold about a hundred UUIDs' folders
    /// each at 30,000 UUIDs, whose files are found (opened and checked) ahead: a first `ls -R`
    /// took 0.87 to 0.98 times as long (three alternating rounds, on libfuse's loop of several
    /// threads). `native`'s hold one or two, each a chain four deep: made
    /// ahead, they cost more processor time than they saved a walk (13.3 s against 12.2 to 13.0).
    private func readAhead(below listing: SymbolListing) {
        let below = listing.children.compactMap { child -> SymbolPath? in
            if case let .directory(_, below) = child { below } else { nil }
        }
        guard below.count >= Self.readAheadFanOut else { return }
        symbolReadAhead.schedule(below) { [self] path in
            let version = symbols.generation
            guard let children = symbols.children(of: path, readingCatalogue: false) else { return nil }
            // What the entries' attributes need (`imageSources`), gathered now too.
            let lookups = ListingLookups()
            for case let .file(_, _, status, match) in children { _ = symbolFileAccess(status, match: match, statuses: lookups.statuses) }
            requests.count(.readAhead)
            let made = SymbolListing(children: children, lookups: lookups)
            readAhead(below: made)
            return (made, version)
        }
    }

    /// The fewest subdirectories a listing has its subtrees made ahead for.
    static let readAheadFanOut = 8

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

/// A symbol store directory's entries, and what their READDIRPLUS entries need.
struct SymbolListing: Sendable {
    var children: [SymbolStores.Child]
    var lookups: ListingLookups
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
