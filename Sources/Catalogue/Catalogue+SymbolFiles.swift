public import BundleModel
public import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A catalogued file that answers a symbol layout's path (SPEC.md "Symbol stores"), open, with
/// its attributes as of the open: what is served is the opened file, whatever the path leads to
/// afterwards.
public struct SymbolFile: Sendable {
    public let match: DebugSymbols.Match
    /// The path opened: the one the indexer read, no component of it a symlink.
    public let path: FilePath
    public let descriptor: Descriptor
    public let status: FileStatus
}

/// Why a catalogued file was not served.
public struct SymbolFileRefusal: Error, CustomStringConvertible {
    public enum Kind: Sendable {
        /// The catalogue has no file on disk for the slice: an archive's member, a file read
        /// through a link out of its bundle, a row from before schema v17.
        case notRecorded
        /// The file is not the one indexed any more: a link on its path, another inode, another
        /// size or time, or gone. Served again once the watcher or an index has read it again.
        case changed
        /// It cannot be opened for another reason (permissions): nothing says it changed.
        case unreadable
    }

    public let kind: Kind
    /// The file as catalogued (its bundle and the path in it).
    public let file: FilePath
    public let reason: String

    public var description: String {
        switch kind {
        case .notRecorded: "\(file): not served: \(reason)"
        case .changed: "\(file): not served: changed since it was indexed (\(reason)); served again once it is read again"
        case .unreadable: "\(file): not served: \(reason)"
        }
    }
}

/// The one finder of the file that answers a layout's entry, for the HTTP server
/// (`Catalogue.symbolFile`) and the view (by-uuid and the symbol stores, on the matches they keep
/// between two updates): which match (`DebugSymbols.candidates`), and which file
/// (`Catalogue.openRecorded`).
public enum SymbolFileFinder {
    /// The file that answers `role` among an image's `matches` (`DebugSymbols.candidates`' order:
    /// an ELF image's own executable when no dSYM holds its debug file, as debuginfod serves it).
    public static func file(for role: SymbolLayout.Role, in matches: [DebugSymbols.Match], roots: [FilePath],
                            refused: (SymbolFileRefusal) -> Void) throws -> SymbolFile? {
        try first(among: DebugSymbols.candidates(for: role, in: matches), roots: roots, refused: refused)
    }

    /// The first of `candidates` whose recorded file opens unchanged inside one of `roots`
    /// (absolute and canonical, as the indexer keeps them); nil when none does. Each candidate
    /// refused is told to `refused`. Throws what says nothing of the file (no descriptor or
    /// memory is left): an answer then is not a 404.
    public static func first(among candidates: [DebugSymbols.Match], roots: [FilePath],
                             refused: (SymbolFileRefusal) -> Void) throws -> SymbolFile? {
        for match in candidates {
            switch try Catalogue.openRecorded(match, roots: roots) {
            case let .success(file): return file
            case let .failure(refusal): refused(refusal)
            }
        }
        return nil
    }
}

extension Catalogue {
    /// The file that answers `entry` inside `roots` (`SymbolFileFinder`), from the catalogue's
    /// matches of its key. Throws also when the catalogue cannot be read.
    public func symbolFile(_ entry: SymbolLayout.Entry, roots: [FilePath],
                           refused: (SymbolFileRefusal) -> Void = { _ in }) throws -> SymbolFile? {
        try SymbolFileFinder.file(for: entry.role, in: symbolMatches(uuidKey: entry.key), roots: roots, refused: refused)
    }

    /// Opens exactly the file the indexer read for `match` (Docs/symbols.md, "Which file is
    /// served"): its recorded path, every link already resolved when it was read, opened beneath
    /// its root with no symlink followed on the way (openat2 with RESOLVE_BENEATH and
    /// RESOLVE_NO_SYMLINKS), and then only if fstat finds the device, inode, size and
    /// modification time recorded. A file swapped for a link, a bundle directory swapped for a
    /// link, a hard link or a copy put in its place, or a rewrite, is refused. Throws when the
    /// process is out of descriptors or memory: that judges nothing.
    public static func openRecorded(_ match: DebugSymbols.Match, roots: [FilePath]) throws -> Result<SymbolFile, SymbolFileRefusal> {
        func refusal(_ kind: SymbolFileRefusal.Kind, _ reason: String) -> Result<SymbolFile, SymbolFileRefusal> {
            .failure(SymbolFileRefusal(kind: kind, file: match.file, reason: reason))
        }
        guard let disk = match.slice.onDisk else {
            return refusal(.notRecorded, "no file on disk is recorded for it (an archive's member, a file reached through a link out of its bundle, or not read again since this version of bundlefs)")
        }
        let path = match.bundle.appending(disk.path)
        // The file read, named when links led there from the catalogued path.
        let read = path == match.file ? "" : " (read as \(path))"
        guard let root = roots.first(where: { path.isWithin($0) }), let relative = path.relative(to: root), !relative.isEmpty else {
            return refusal(.notRecorded, "\(path) is outside the roots served")
        }
        let file: Descriptor
        do {
            let directory = try Descriptor.open(root, flags: O_PATH_DIRECTORY)
            file = try directory.openBeneathWithoutLinks(relative, flags: Descriptor.readOnly | O_NOFOLLOW | O_NONBLOCK)
        } catch let error as SystemError {
            switch error.errno {
            case ELOOP: return refusal(.changed, "a symlink is on its path\(read)")
            case ENOENT, ENOTDIR: return refusal(.changed, "it is gone\(read)")
            case EXDEV: return refusal(.changed, "its path\(read) leads out of \(root)")
            case EMFILE, ENFILE, ENOMEM: throw error
            default: return refusal(.unreadable, "it cannot be opened\(read): \(error)")
            }
        }
        guard let status = try? file.status() else { return refusal(.changed, "it cannot be examined\(read)") }
        guard disk.isUnchanged(status) else { return refusal(.changed, Self.difference(disk, status) + read) }
        return .success(SymbolFile(match: match, path: path, descriptor: file, status: status))
    }

    /// What differs between the file indexed and the one found, for the log.
    static func difference(_ disk: BinarySlice.DiskFile, _ status: FileStatus) -> String {
        if status.type != .regular { return "it is now a \(status.type)" }
        if status.device != disk.device || status.inode != disk.inode {
            return "another file is there: inode \(status.inode) on device \(status.device), indexed \(disk.inode) on \(disk.device)"
        }
        if status.size != disk.size { return "it is \(status.size) bytes, indexed at \(disk.size)" }
        return "it was modified at \(status.modificationTime) ns, indexed at \(disk.modificationTime) ns"
    }
}
