import BundleModel
import Synchronization
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The access each item of the `.bundlefs` tree allows (SPEC.md, "Nothing leaks"): `by-path`
/// mirrors the directories of SOURCE it follows; a bundle's view grants no more than the bundle's
/// own directory and every directory above it in SOURCE; its `Info.plist` and `Resources` no more
/// than the files and directories they are made from.
extension ViewFileSystem {
    /// `lookups` carries what a listing already gathered (directory statuses shared by its
    /// entries, a by-uuid listing's matches), so an entry of a long listing costs no more queries.
    func access(of kind: NodeKind, detail: SyntheticDetail, lookups: ListingLookups = ListingLookups()) -> Access {
        let statuses = lookups.statuses
        switch (kind, detail) {
        case let (.byPath, .pathPrefix(prefix)):
            return statuses.status(of: source.absolute(prefix)).map(Access.mirrored) ?? noAccess
        case let (.bundleView, .bundle(.path(path))):
            return statuses.status(of: path).map(Access.mirrored) ?? noAccess
        case let (.bundleView, .bundle(key)) where views.archive(forView: key) != nil,
             let (.info, .bundle(key)) where views.archive(forView: key) != nil:
            // Made from the archive: no more than reading the archive allows.
            guard let archive = views.archive(forView: key), let owner = statuses.status(of: archive) else { return noAccess }
            let sources = [(owner, Access.Need.read)] + chain(of: archive.parent, statuses).map { ($0.status, Access.Need.traverse) }
            return Access.derived(owner: owner, isDirectory: kind == .bundleView, from: sources)
        case let (.bundleView, .bundle(key)):
            guard let path = views.bundlePath(forView: key), let owner = statuses.status(of: path) else { return noAccess }
            return Access.derived(owner: owner, isDirectory: true, from: chain(of: path, statuses))
        case (.byID, _), (.byUUID, _):
            return Self.searchOnlyForOthers
        case let (.symbols, .symbolPath(path)) where path.layout != nil:
            // A layout's directories hold many UUIDs' names, as by-uuid does.
            return Self.searchOnlyForOthers
        case let (.info, .bundle(key)):
            guard let record = views.record(forView: key), let path = record.diskPath, let owner = statuses.status(of: path) else { return noAccess }
            var files = record.infoFile.map { [$0] } ?? []
            if let strings = record.chosenInfoPlistStringsFile(for: packages.languages) { files.append(strings) }
            let sources = files.flatMap { within(path, $0, need: .read, statuses) }
            return Access.derived(owner: owner, isDirectory: false, from: sources)
        case let (.icon, .bundle(key)):
            // Made from the icon file alone, which may lie in another bundle (a claimed document's).
            guard let record = views.record(forView: key), let path = record.diskPath, let owner = statuses.status(of: path),
                  let icon = record.icon, let relative = source.relative(icon)
            else { return noAccess }
            return Access.derived(owner: owner, isDirectory: false, from: within(source.path, relative, need: .read, statuses))
        case let (.resources, .resources(key, subpath)):
            guard let record = views.record(forView: key), let path = record.diskPath, let owner = statuses.status(of: path) else { return noAccess }
            let directories = record.searchLevels(for: packages.languages).map { $0.directory.appending(subpath) }
            let existing = directories.filter { statuses.status(of: path.appending($0)) != nil }
            let sources = existing.flatMap { within(path, $0, need: .list, statuses) }
            return Access.derived(owner: owner, isDirectory: true, from: sources)
        case let (.uuidView, .uuid(key)), let (.uuidInfo, .uuid(key)):
            // Names the dSYM and the executable: no more than their bundles and files allow.
            let matches = lookups.uuidMatches[key] ?? uuids.matches(key)
            // The directories down to each file are passed through; the file itself is a real node
            // whose own mode the kernel checks when it is read.
            let sources = matches.flatMap { imageSources($0, statuses) }
            return Access.derived(owner: rootStatus, isDirectory: kind == .uuidView, from: sources.isEmpty ? [(noAccessStatus, .read)] : sources)
        default:
            // `.bundlefs` itself lists fixed names.
            return Access(userID: rootStatus.userID, groupID: rootStatus.groupID, mode: 0o555)
        }
    }

    /// A symbol store's file (`SymbolStores`), the real file `status` of `match`: by-uuid's access
    /// to its directory and the file's own, in one mode, since no directory of its own stands
    /// between a layout's shared directories and it.
    func symbolFileAccess(_ status: FileStatus, match: DebugSymbols.Match, statuses: StatusMemo = StatusMemo()) -> Access {
        Access.derived(owner: status, isDirectory: false, from: imageSources(match, statuses) + [(status, .read)])
    }

    /// What a by-uuid match is reached through: its bundle (listed), the directories above it and
    /// those from it down to its file (passed through).
    /// The bundle and the directories below it are stat'ed through one descriptor of the bundle
    /// (a by-uuid listing's statuses of 30,000 images walked every path from `/`, three times).
    private func imageSources(_ match: DebugSymbols.Match, _ statuses: StatusMemo) -> [(status: FileStatus, need: Access.Need)] {
        statuses.image(match.bundle, match.slice.file.parent) {
            let bundle = try? Descriptor.open(match.bundle, flags: O_PATH_ONLY)
            let bundleStatus = try? bundle?.status()
            var sources = chain(of: match.bundle, status: bundleStatus, statuses)
            var below = FilePath.here
            for component in match.slice.file.parent.components {
                below = below.appending(component)
                sources.append(((try? bundle?.status(of: FileName(below.string), followSymlinks: true)) ?? noAccessStatus, .traverse))
            }
            if below.isEmpty { sources.append((bundleStatus ?? noAccessStatus, .traverse)) }
            return sources
        }
    }

    /// `by-id` and `by-uuid` (SPEC.md "Nothing leaks"; Docs/view.md): the kernel keeps a
    /// directory's listing (`no_opendir`) and shows it to every user who may read it, so a listing
    /// cannot be filtered per user. They are listed to the daemon's own user, whose scans found
    /// every bundle they name, and only searched by everyone else: each user reaches
    /// `by-id/ID` of every bundle whose view their own access allows, whatever else is there.
    static let searchOnlyForOthers = Access(userID: geteuid(), groupID: getegid(), mode: 0o511)

    private var noAccess: Access { Access(userID: rootStatus.userID, groupID: rootStatus.groupID, mode: 0) }

    /// A bundle's directory (listed) and every directory above it up to SOURCE (passed through).
    private func chain(of bundle: FilePath, _ statuses: StatusMemo) -> [(status: FileStatus, need: Access.Need)] {
        chain(of: bundle, status: bundle.isWithin(source.path) ? statuses.status(of: bundle) : nil, statuses)
    }

    /// The same, with the bundle's own status already found.
    private func chain(of bundle: FilePath, status: FileStatus?, _ statuses: StatusMemo) -> [(status: FileStatus, need: Access.Need)] {
        guard bundle.isWithin(source.path) else { return [] }
        guard let status else { return [(noAccessStatus, .read)] }
        if bundle == source.path { return [(status, .list)] }
        let above = statuses.traversal(above: bundle.parent) { traversal(of: $0, statuses) }
        return above.first?.need == .read ? above : [(status, .list)] + above
    }

    /// `directory` and every directory above it up to SOURCE, passed through; kept per listing,
    /// since many bundles share them (a by-uuid entry then costs one lookup for all of them).
    private func traversal(of directory: FilePath, _ statuses: StatusMemo) -> [(status: FileStatus, need: Access.Need)] {
        var sources: [(status: FileStatus, need: Access.Need)] = []
        var current = directory
        while current.isWithin(source.path) {
            guard let status = statuses.status(of: current) else { return [(noAccessStatus, .read)] }
            sources.append((status, .traverse))
            if current == source.path { break }
            current = current.parent
        }
        return sources
    }

    /// An item inside a bundle (a file read, a directory listed) and the directories between the
    /// bundle and it (passed through). One that cannot be looked at now grants nothing: what the
    /// catalogue recorded of it may no longer be readable.
    private func within(_ bundle: FilePath, _ relative: FilePath, need: Access.Need, _ statuses: StatusMemo)
        -> [(status: FileStatus, need: Access.Need)] {
        var sources: [(status: FileStatus, need: Access.Need)] = []
        var path = bundle
        for component in relative.components.dropLast() {
            path = path.appending(component)
            sources.append((statuses.status(of: path) ?? noAccessStatus, .traverse))
        }
        sources.append((statuses.status(of: bundle.appending(relative)) ?? noAccessStatus, need))
        return sources
    }

    /// A status no class is granted anything by: stands for a source that cannot be looked at.
    private var noAccessStatus: FileStatus {
        var status = rootStatus
        status.permissions = 0
        return status
    }
}

/// Each path stat'ed once per question, or per listing (the directories above many bundles are
/// shared); a listing's entries may be answered on several threads.
final class StatusMemo: Sendable {
    private let known = Mutex<[FilePath: FileStatus?]>([:])
    private let traversals = Mutex<[FilePath: [(status: FileStatus, need: Access.Need)]]>([:])
    private let images = Mutex<[ImageDirectory: [(status: FileStatus, need: Access.Need)]]>([:])

    private struct ImageDirectory: Hashable {
        var bundle: FilePath
        var directory: FilePath
    }

    /// What an image in `directory` of `bundle` is reached through, as `make` finds it, made once
    /// per memo: a universal executable's UUIDs, and a bundle's images side by side, share it.
    func image(_ bundle: FilePath, _ directory: FilePath, make: () -> [(status: FileStatus, need: Access.Need)])
        -> [(status: FileStatus, need: Access.Need)] {
        let key = ImageDirectory(bundle: bundle, directory: directory)
        if let kept = images.withLock({ $0[key] }) { return kept }
        let made = make()
        images.withLock { $0[key] = made }
        return made
    }

    /// The directories from `directory` up to SOURCE as `make` finds them, made once per memo.
    func traversal(above directory: FilePath, make: (FilePath) -> [(status: FileStatus, need: Access.Need)])
        -> [(status: FileStatus, need: Access.Need)] {
        if let kept = traversals.withLock({ $0[directory] }) { return kept }
        let made = make(directory)
        traversals.withLock { $0[directory] = made }
        return made
    }

    /// Follows symlinks: access is decided by what a path leads to.
    func status(of path: FilePath) -> FileStatus? {
        if let cached = known.withLock({ $0[path] }) { return cached }
        let status = try? FileStatus.of(path, followSymlinks: true)
        known.withLock { $0[path] = status }
        return status
    }
}

/// What one listing of a `.bundlefs` directory gathers once for all its entries.
final class ListingLookups: Sendable {
    let statuses = StatusMemo()
    /// A by-uuid listing's matches by UUID key, from one query.
    let uuidMatches: [String: [DebugSymbols.Match]]

    init(uuidMatches: [String: [DebugSymbols.Match]] = [:]) {
        self.uuidMatches = uuidMatches
    }
}
