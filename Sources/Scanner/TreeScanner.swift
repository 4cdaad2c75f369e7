public import BundleModel
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
    public var excluded: Set<String>
    /// Events the scanner may queue before it waits for the sink.
    public var queueCapacity: Int

    public init(
        threads: Int = Threads.processorCount, settings: InspectionSettings = .standard,
        distrustWindow: Int64 = 2_000_000_000, excluded: Set<String> = [], queueCapacity: Int = 16_384
    ) {
        self.threads = max(1, threads)
        self.settings = settings
        self.distrustWindow = distrustWindow
        self.excluded = excluded
        self.queueCapacity = queueCapacity
    }
}

/// What a scan found, beyond the events it sent.
public struct ScanResult: Sendable {
    /// Every directory that exists under the root (listed or known unchanged).
    public var visitedDirectories: Set<String> = []
    /// Every bundle or package that exists under the root (re-read or known unchanged).
    public var presentBundles: Set<String> = []
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
    let options: ScanOptions
    let known: KnownTree

    public init(root: ScanRoot, known: KnownTree = KnownTree(), options: ScanOptions = ScanOptions(), progress: ScanProgress = ScanProgress()) {
        self.root = root
        self.progress = progress
        self.known = known
        self.options = options
        inspector = BundleInspector(root: root, settings: options.settings)
    }

    /// Walks the whole tree, delivering events to `sink` on the calling thread.
    public func scan(into sink: some ScanSink) -> ScanResult {
        let walk = Walk(scanner: self)
        let rootNode = Node(parent: nil)
        walk.stack.push(DirectoryTask(path: root.path, hasSidecar: false, enclosingBundle: nil, node: rootNode))
        let workers = (0..<options.threads).map { _ in
            Threads.spawn { walk.work() }
        }
        walk.deliver(to: sink, until: { walk.workersDone.load(ordering: .acquiring) == self.options.threads })
        for worker in workers { Threads.join(worker) }
        walk.deliverRemaining(to: sink)

        // A changed directory inside a bundle can change the bundle (an lproj added, an
        // executable removed): re-read those bundles that were not re-read already.
        let state = walk.state.withLock { $0 }
        for path in state.dirtyBundles.subtracting(state.inspectedBundles).sorted() where state.result.visitedDirectories.contains(path) {
            let outcome = inspectDirectory(at: path)
            walk.emit(for: path, outcome)
        }
        walk.deliverRemaining(to: sink)
        return walk.state.withLock { $0.result }
    }

    /// The result of reading one directory on its own.
    public enum Outcome: Sendable {
        case bundle(BundleRecord)
        case notABundle
        case missing
        case unreadable(String)
    }

    /// Reads one directory as the walk would (for re-reads after the walk, claims and watchers).
    public func inspectDirectory(at path: String) -> Outcome {
        guard let relative = root.relative(path) else { return .missing }
        do {
            let descriptor = try Descriptor.open(path, flags: Descriptor.directoryNoFollow)
            let entries = try descriptor.listDirectoryTyped()
            let sidecar = relative.isEmpty ? false : (try? FileStatus.of(Paths.join(Paths.parent(path), "._" + Paths.lastComponent(path)))) != nil
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
    func stampsUnchanged(bundle path: String, _ stamps: [FileStamp]) -> Bool {
        guard let relative = root.relative(path) else { return false }
        for stamp in stamps {
            guard let status = root.status(Paths.join(relative, stamp.path)),
                  status.changeTime == stamp.changeTime, status.size == stamp.size, status.inode == stamp.inode
            else { return false }
        }
        return true
    }
}

/// A directory waiting to be walked.
struct DirectoryTask: Sendable {
    var path: String
    var hasSidecar: Bool
    /// The nearest catalogued bundle or package above it.
    var enclosingBundle: String?
    /// Part of the enclosing bundle's own structure (its `Contents`, say): never a bundle itself.
    var isStructural = false
    /// The enclosing bundle's structural paths below this directory.
    var structure = BundleStructure(patterns: [])
    var node: Node

    /// The task for a subdirectory, carrying the structure of `bundle` when this directory is one.
    func child(_ name: String, hasSidecar: Bool, bundle: BundleStructure?) -> DirectoryTask {
        let (isStructural, below) = (bundle ?? structure).descending(into: name)
        return DirectoryTask(
            path: Paths.join(path, name), hasSidecar: hasSidecar,
            enclosingBundle: bundle != nil ? path : enclosingBundle, isStructural: isStructural, structure: below,
            node: Node(parent: node))
    }
}

/// Post-order bookkeeping: a directory's row is released only when its own listing and all its
/// subdirectories are done, so the catalogue never holds a row for a half-walked directory.
final class Node: Sendable {
    let parent: Node?
    let pending = Atomic<Int>(1)
    let row = Mutex<DirectoryRow?>(nil)

    init(parent: Node?) { self.parent = parent }
}

/// The mutable state of one walk, shared by its threads.
final class Walk: Sendable {
    struct State: Sendable {
        var result = ScanResult()
        var inspectedBundles = Set<String>()
        var dirtyBundles = Set<String>()
        var seen = Set<FileIdentity>()
    }

    struct FileIdentity: Hashable, Sendable {
        var device: UInt64
        var inode: UInt64
    }

    let scanner: TreeScanner
    let stack = WorkStack<DirectoryTask>()
    let channel: EventChannel
    let state = Mutex(State())
    let workersDone = Atomic<Int>(0)

    init(scanner: TreeScanner) {
        self.scanner = scanner
        channel = EventChannel(capacity: scanner.options.queueCapacity)
    }

    func work() {
        while let task = stack.pop() {
            process(task)
            stack.finished()
        }
        workersDone.add(1, ordering: .releasing)
        channel.wake()
    }

    func deliver(to sink: some ScanSink, until done: () -> Bool) {
        while true {
            let events = channel.drain(waitingUpTo: 0.05)
            if !events.isEmpty { sink.receive(events) } else if done() { return }
        }
    }

    func deliverRemaining(to sink: some ScanSink) {
        let events = channel.drain(waitingUpTo: 0)
        if !events.isEmpty { sink.receive(events) }
    }

    func emit(for path: String, _ outcome: TreeScanner.Outcome) {
        switch outcome {
        case let .bundle(record):
            channel.append(.bundle(record))
            state.withLock { $0.result.presentBundles.insert(path); $0.inspectedBundles.insert(path) }
        case .notABundle:
            if scanner.known.bundles[path] != nil { channel.append(.bundleRemoved(path: path)) }
        case .missing:
            break
        case let .unreadable(problem):
            state.withLock { $0.result.problems.append(problem) }
        }
    }

    private func process(_ task: DirectoryTask) {
        defer { finish(task.node) }
        let known = scanner.known
        guard let status = try? FileStatus.of(task.path), status.type == .directory else { return } // gone, or no longer a directory
        let identity = FileIdentity(device: status.device, inode: status.inode)
        guard state.withLock({ $0.seen.insert(identity).inserted }) else {
            state.withLock { $0.result.problems.append("\(task.path): the same directory was reached twice (a bind mount loop?); walked once") }
            return
        }
        let sidecar = task.hasSidecar ? sidecarStamp(of: task.path) : nil
        let knownBundle = known.bundles[task.path]
        if let before = known.directories[task.path], before.trusted, before.changeTime == status.changeTime,
           before.inode == status.inode, before.sidecar == sidecar,
           knownBundle.map({ scanner.stampsUnchanged(bundle: task.path, $0) }) ?? true {
            walkUnchanged(task, isBundle: knownBundle != nil)
        } else {
            walkListing(task, sidecar: sidecar)
        }
    }

    /// The directory is as catalogued: its subdirectories are known without listing it.
    private func walkUnchanged(_ task: DirectoryTask, isBundle: Bool) {
        scanner.progress.visitedDirectory(listed: false)
        state.withLock {
            $0.result.visitedDirectories.insert(task.path)
            if isBundle { $0.result.presentBundles.insert(task.path) }
        }
        let structure = isBundle ? scanner.known.structures[task.path] ?? BundleStructure(patterns: []) : nil
        let children = (scanner.known.children[task.path] ?? []).map { name in
            task.child(name, hasSidecar: scanner.known.directories[Paths.join(task.path, name)]?.sidecar != nil, bundle: structure)
        }
        schedule(children, under: task.node)
    }

    private func walkListing(_ task: DirectoryTask, sidecar: FileStamp?) {
        let path = task.path
        let descriptor: Descriptor
        let status: FileStatus
        let entries: [DirectoryEntry]
        do {
            descriptor = try Descriptor.open(path, flags: Descriptor.directoryNoFollow)
            status = try descriptor.status() // before listing: a change during the listing shows next time
            entries = try descriptor.listDirectoryTyped()
        } catch let error as SystemError where error.errno == ENOENT || error.errno == ENOTDIR || error.errno == ELOOP {
            return
        } catch {
            keepKnownSubtree(of: path, because: "\(error)")
            return
        }
        scanner.progress.visitedDirectory(listed: true)
        state.withLock { state in
            state.result.visitedDirectories.insert(path)
            if let enclosing = task.enclosingBundle { state.dirtyBundles.insert(enclosing) }
        }

        let relative = scanner.root.relative(path) ?? ""
        let context = DirectoryContext(path: path, relativePath: relative, descriptor: descriptor, entries: entries, hasSidecar: task.hasSidecar)
        let record = task.isStructural ? nil : scanner.inspector.inspect(context)
        if record != nil { scanner.progress.readBundle() }
        emit(for: path, record.map(TreeScanner.Outcome.bundle) ?? .notABundle)

        let now = wallClockNanoseconds()
        task.node.row.withLock {
            $0 = DirectoryRow(
                path: path, changeTime: status.changeTime, inode: status.inode, device: status.device,
                lowercasedExtension: FileNames.lowercasedExtension(Paths.lastComponent(path)),
                trusted: status.changeTime < now - scanner.options.distrustWindow, sidecar: sidecar)
        }
        let sidecars = Set(entries.lazy.filter { $0.name.hasPrefix("._") }.map(\.name))
        let structure = record.map(BundleStructure.init(record:))
        var children: [DirectoryTask] = []
        for entry in entries where entry.type == .directory {
            if scanner.options.excluded.contains(Paths.join(path, entry.name)) { continue }
            children.append(task.child(entry.name, hasSidecar: sidecars.contains("._" + entry.name), bundle: structure))
        }
        schedule(children, under: task.node)
    }

    /// A directory that cannot be read keeps what the catalogue knew under it: nothing is lost
    /// because of a permission problem that may be temporary.
    private func keepKnownSubtree(of path: String, because problem: String) {
        let known = scanner.known
        state.withLock { state in
            state.result.problems.append(problem)
            var pending = [path]
            while let next = pending.popLast() {
                guard known.directories[next] != nil else { continue }
                state.result.visitedDirectories.insert(next)
                if known.bundles[next] != nil { state.result.presentBundles.insert(next) }
                pending += (known.children[next] ?? []).map { Paths.join(next, $0) }
            }
        }
    }

    private func schedule(_ children: [DirectoryTask], under node: Node) {
        node.pending.add(children.count, ordering: .relaxed)
        stack.push(contentsOf: children)
    }

    /// Releases the node's own share; the last one out emits the row and walks up.
    private func finish(_ node: Node) {
        var current: Node? = node
        while let node = current, node.pending.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            if let row = node.row.withLock({ $0 }) { channel.append(.directory(row)) }
            current = node.parent
        }
    }

    private func sidecarStamp(of path: String) -> FileStamp? {
        let sidecar = Paths.join(Paths.parent(path), "._" + Paths.lastComponent(path))
        guard let status = try? FileStatus.of(sidecar) else { return nil }
        return FileStamp(path: "../._" + Paths.lastComponent(path), changeTime: status.changeTime, size: status.size, inode: status.inode)
    }
}

func wallClockNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}
