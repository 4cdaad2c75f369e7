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
    /// The path opened: the match's file with every symlink resolved.
    public let path: FilePath
    public let descriptor: Descriptor
    public let status: FileStatus
}

/// The one lookup from a layout's entry to the file that answers it, for the HTTP server and any
/// view: which match (`DebugSymbols.candidates`), and opened only inside the catalogue's roots.
extension Catalogue {
    /// The first candidate for `entry` that opens as a regular file inside one of `roots`
    /// (absolute and canonical, as the indexer keeps them); nil when none does. A path from the
    /// catalogue is resolved, must lie within a root, and is then opened beneath that root's
    /// directory (openat2 with RESOLVE_BENEATH) and without following a final symlink, so that a
    /// file swapped for a symlink after the check is refused rather than followed out.
    public func symbolFile(_ entry: SymbolLayout.Entry, roots: [FilePath]) throws -> SymbolFile? {
        let matches = try symbolMatches(uuidKey: entry.key)
        for match in DebugSymbols.candidates(for: entry.role, in: matches) {
            if let file = try Self.openConfined(match, roots: roots) { return file }
        }
        return nil
    }

    /// Throws only when the process or the system is out of descriptors: not knowing is not "not
    /// found", which the HTTP server would answer 404 and debuginfod clients would cache.
    static func openConfined(_ match: DebugSymbols.Match, roots: [FilePath]) throws -> SymbolFile? {
        func opened(_ open: () throws -> Descriptor) throws -> Descriptor? {
            do { return try open() } catch let error as SystemError where error.errno == EMFILE || error.errno == ENFILE { throw error } catch { return nil }
        }
        guard let real = try? match.file.resolved(),
              let root = roots.first(where: { real.isWithin($0) }), let relative = real.relative(to: root), !relative.isEmpty,
              let directory = try opened({ try Descriptor.open(root, flags: O_PATH_DIRECTORY) }),
              let file = try opened({ try directory.openBeneath(relative, flags: Descriptor.readOnly | O_NOFOLLOW | O_NONBLOCK) }),
              let status = try? file.status(), status.type == .regular
        else { return nil }
        return SymbolFile(match: match, path: real, descriptor: file, status: status)
    }
}
