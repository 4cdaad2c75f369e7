import Archives
public import BundleModel
public import Records
public import SystemCalls
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

public struct ScanOptions: Sendable {
    public var threads: Int
    public var settings: InspectionSettings
    /// A directory whose ctime is this close to the moment it was listed is not trusted on the
    /// next run (a later change in the same clock tick would leave the ctime unchanged).
    public var distrustWindow: Int64
    /// Absolute paths not to descend into (a view mounted inside the tree, say).
    public var excluded: Set<FilePath>
    /// Events the scanner may queue before it waits for the sink. A first index's walkers outrun
    /// its writer, so the queue stays full: up to twice this many events (the batch being written
    /// and the next) are held at once. 16,384 rather than 65,536 took 20 MB off `watch`'s peak at a
    /// million entries (149 to 129 MB) and left the bench tree's first index as fast (medians of
    /// ten alternating runs 5.41 and 5.39 s).
    public var queueCapacity: Int
    /// Called for every directory before the scan lists it or trusts what the catalogue knew of it:
    /// with its open descriptor when it was opened, else with nil (the watcher adds its inotify
    /// watch here, so that nothing changing after the listing goes unseen).
    /// `visited` is true for the directories the walk visits (their real paths), false for the
    /// listings an inspection makes on the way (a bundle's `Contents`, lprojs), whose paths may
    /// pass through a symlink (a framework's `Resources` link) and name no directory of the tree.
    public var watchDirectory: (@Sendable (_ path: FilePath, _ descriptor: Descriptor?, _ visited: Bool) -> Void)?
    /// List only the starting directories; report their subdirectories in `ScanResult.childStarts`.
    public var shallow: Bool

    public init(
        threads: Int = Threads.processorCount, settings: InspectionSettings = .standard,
        distrustWindow: Int64 = 2_000_000_000, excluded: Set<FilePath> = [], queueCapacity: Int = 16_384,
        watchDirectory: (@Sendable (FilePath, Descriptor?, Bool) -> Void)? = nil, shallow: Bool = false
    ) {
        self.threads = max(1, threads)
        self.settings = settings
        self.distrustWindow = distrustWindow
        self.excluded = excluded
        self.queueCapacity = queueCapacity
        self.watchDirectory = watchDirectory
        self.shallow = shallow
    }
}

/// Where a scan starts, with what it needs to know of the bundle around it.
public struct ScanStart: Sendable, Equatable {
    public var path: FilePath
    public var hasSidecar: Bool
    /// The nearest catalogued bundle or package above it.
    public var enclosingBundle: FilePath?
    /// Part of the enclosing bundle's own structure (never a bundle itself).
    public var isStructural: Bool
    /// The enclosing bundle's structural paths below it.
    public var structure: BundleStructure
    /// Its inode as the parent's listing gave it (0 when not known).
    public var inode: UInt64 = 0

    public init(path: FilePath, hasSidecar: Bool = false, enclosingBundle: FilePath? = nil, isStructural: Bool = false,
                structure: BundleStructure = BundleStructure(patterns: []), inode: UInt64 = 0) {
        self.inode = inode
        self.path = path
        self.hasSidecar = hasSidecar
        self.enclosingBundle = enclosingBundle
        self.isStructural = isStructural
        self.structure = structure
    }
}

/// What a scan found, beyond the events it sent.
public struct ScanResult: Sendable {
    /// The directories that exist under the root (listed or known unchanged) and that the
    /// catalogue knew, by their `KnownTree` ordinals, and the others by path (`visited(_:known:)`).
    public var visitedKnownDirectories = OrdinalSet()
    public var visitedNewDirectories: Set<FilePath> = []
    /// The bundles or packages that exist under the root (re-read or known unchanged), the same way.
    public var presentKnownBundles = OrdinalSet()
    public var presentNewBundles: Set<FilePath> = []

    /// Whether a directory was visited.
    public func visited(_ path: FilePath, known: KnownTree) -> Bool {
        known.directory(at: path).map { visitedKnownDirectories.contains($0.ordinal) } ?? visitedNewDirectories.contains(path)
    }

    /// Whether a bundle was found present.
    public func present(_ bundle: FilePath, known: KnownTree) -> Bool {
        known.directory(at: bundle).map { presentKnownBundles.contains($0.ordinal) } ?? presentNewBundles.contains(bundle)
    }
    /// In a shallow scan: the subdirectories of the directories listed, ready to be scanned.
    public var childStarts: [ScanStart] = []

    public init() {}
    /// Directories that could not be read, and other problems with the tree itself.
    public var problems: [String] = []
}

/// Walks a tree on several threads and reports its bundles and directories. With a `KnownTree`
/// from an earlier run it lists only directories whose ctime changed and re-reads only bundles
/// whose files changed.
public final class TreeScanner: Sendable {
    public let root: ScanRoot
    public let progress: ScanProgress
    let inspector: BundleInspector
    /// Looks into archives (rule 26) with the same rules.
    let archives: ArchiveInspector
    let options: ScanOptions
    let known: KnownTree

    public init(root: ScanRoot, known: KnownTree = KnownTree(), options: ScanOptions = ScanOptions(), progress: ScanProgress = ScanProgress()) {
        self.root = root
        self.progress = progress
        self.known = known
        self.options = options
        inspector = BundleInspector(root: root, settings: options.settings)
        archives = ArchiveInspector(inspector: inspector)
    }

    /// Walks the whole tree, delivering events to `sink` on the calling thread.
    public func scan(into sink: some ScanSink) -> ScanResult {
        scan(from: [ScanStart(path: root.path)], into: sink)
    }

    /// Walks the subtrees at `starts` (directories under the root), or only those directories
    /// when the options say `shallow`.
    public func scan(from starts: [ScanStart], into sink: some ScanSink) -> ScanResult {
        let walk = Walk(scanner: self)
        walk.stack.push(contentsOf: starts.map { start in
            DirectoryTask(
                path: start.path, hasSidecar: start.hasSidecar, enclosingBundle: start.enclosingBundle,
                isStructural: start.isStructural, structure: start.structure, node: Node(parent: nil))
        })
        let workers = (0..<options.threads).compactMap { _ in try? Threads.start { walk.work() } }
        var expected = workers.count
        if workers.isEmpty {
            // No thread could start (the process's or its user's limit): walk on this one, the
            // channel holding every event until the walk ends, rather than end the daemon.
            walk.channel.removeBound()
            walk.work()
            expected = 1
        }
        walk.deliver(to: sink, until: { walk.workersDone.load(ordering: .acquiring) == expected })
        for worker in workers { Threads.join(worker) }
        walk.deliverRemaining(to: sink)

        // A changed directory inside a bundle can change the bundle (an lproj added, an
        // executable removed): re-read those bundles that were not re-read already.
        let merged = walk.merged.withLock { $0 }
        var log = Walk.WorkerLog()
        for path in merged.dirtyBundles.subtracting(merged.inspectedBundles).sorted() where merged.result.visited(path, known: known) {
            walk.emit(for: path, inspectDirectory(at: path), log: &log)
        }
        walk.merge(log)
        walk.deliverRemaining(to: sink)
        return walk.merged.withLock { $0.result }
    }

    /// The result of reading one directory on its own.
    public enum Outcome: Sendable {
        case bundle(BundleRecord)
        case notABundle
        case missing
        case unreadable(String)
    }

    /// Reads one directory as the walk would (for re-reads after the walk, claims and watchers).
    public func inspectDirectory(at path: FilePath) -> Outcome {
        guard let relative = root.relative(path) else { return .missing }
        do {
            let descriptor = try Descriptor.open(path, flags: Descriptor.directoryNoFollow)
            let entries = try descriptor.listDirectoryTyped()
            let sidecar = relative.isEmpty ? false : (try? FileStatus.of(path.parent.appending(path.lastComponent.prefixed("._")))) != nil
            let context = DirectoryContext(path: path, relativePath: relative, descriptor: descriptor, entries: entries, hasSidecar: sidecar)
            progress.readBundle()
            return inspector.inspect(context).map(Outcome.bundle) ?? .notABundle
        } catch let error as SystemError where error.errno == ENOENT || error.errno == ENOTDIR || error.errno == ELOOP {
            return .missing
        } catch {
            return .unreadable("\(error)")
        }
    }

    /// Whether a catalogued bundle's files still look as they did.
    func stampsUnchanged(bundle path: FilePath, _ stamps: [FileStamp]) -> Bool {
        guard let relative = root.relative(path) else { return false }
        for stamp in stamps {
            guard let status = root.status(relative.appending(stamp.path)),
                  status.changeTime == stamp.changeTime, status.size == stamp.size, status.inode == stamp.inode
            else { return false }
        }
        return true
    }
}
