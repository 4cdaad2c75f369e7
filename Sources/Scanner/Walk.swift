import Archives
import BundleModel
import Records
import Synchronization
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// One walk of a tree, shared by its threads. Each worker keeps its own log of what it saw and
/// merges it once at the end, so the hot path takes no shared lock but the work stack's.
final class Walk: Sendable {
    /// What one worker saw; merged into the result when it finishes.
    struct WorkerLog {
        /// Visits and present bundles: the known ones by ordinal, new ones by path.
        var visitedKnown: [UInt32] = []
        var visited: [FilePath] = []
        var presentKnown: [UInt32] = []
        var presentBundles: [FilePath] = []
        var inspectedBundles: [FilePath] = []
        var dirtyBundles: [FilePath] = []
        var problems: [String] = []
        var childStarts: [ScanStart] = []
    }

    struct Merged: Sendable {
        var result = ScanResult()
        var inspectedBundles = Set<FilePath>()
        var dirtyBundles = Set<FilePath>()
    }

    let scanner: TreeScanner
    let stack = WorkStack<DirectoryTask>()
    let channel: EventChannel
    let merged = Mutex(Merged())
    let workersDone = Atomic<Int>(0)
    /// Visits are recorded only when the catalogue knew the tree: they serve to find what vanished.
    let tracksVisits: Bool

    init(scanner: TreeScanner) {
        self.scanner = scanner
        tracksVisits = !scanner.known.isEmpty
        channel = EventChannel(capacity: scanner.options.queueCapacity, batchSize: scanner.options.queueCapacity / 4)
    }

    func work() {
        var log = WorkerLog()
        while let task = stack.pop() {
            process(task, log: &log)
            stack.finished()
        }
        merge(log)
        workersDone.add(1, ordering: .releasing)
        channel.wake()
    }

    func merge(_ log: WorkerLog) {
        merged.withLock { merged in
            merged.result.visitedKnownDirectories.formUnion(log.visitedKnown)
            merged.result.visitedNewDirectories.formUnion(log.visited)
            merged.result.presentKnownBundles.formUnion(log.presentKnown)
            merged.result.presentNewBundles.formUnion(log.presentBundles)
            merged.result.problems += log.problems
            merged.result.childStarts += log.childStarts
            merged.inspectedBundles.formUnion(log.inspectedBundles)
            merged.dirtyBundles.formUnion(log.dirtyBundles)
        }
    }

    func deliver(to sink: some ScanSink, until done: () -> Bool) {
        while !done() {
            let events = channel.drain(minimum: channel.batchSize, waitingUpTo: 0.5)
            if !events.isEmpty { sink.receive(events) }
        }
    }

    func deliverRemaining(to sink: some ScanSink) {
        let events = channel.drain(minimum: 0, waitingUpTo: 0)
        if !events.isEmpty { sink.receive(events) }
    }

    /// Sends what reading a directory found.
    func emit(for path: FilePath, _ outcome: TreeScanner.Outcome, log: inout WorkerLog) {
        switch outcome {
        case let .bundle(record):
            channel.append(.bundle(record))
            if tracksVisits {
                recordPresent(path, log: &log)
                log.inspectedBundles.append(path)
            }
        case .notABundle:
            if scanner.known.bundles[path] != nil { channel.append(.bundleRemoved(path: path)) }
        case .missing:
            break
        case let .unreadable(problem):
            log.problems.append(problem)
        }
    }

    private func process(_ task: DirectoryTask, log: inout WorkerLog) {
        defer { finish(task.node) }
        let known = scanner.known
        let sidecar = task.hasSidecar ? sidecarStamp(of: task.path) : nil
        // A directory the catalogue knows is stat'ed first: unchanged, it need not be opened.
        if let before = known.directory(at: task.path)?.directory, before.trusted {
            scanner.options.watchDirectory?(task.path, nil, true)
            let status = task.parent.map { try? $0.status(of: task.name) } ?? (try? FileStatus.of(task.path))
            guard let status, status.type == .directory else { return } // gone
            let knownBundle = known.bundles[task.path]
            if before.changeTime == status.changeTime, before.inode == status.inode, known.sidecars[task.path] == sidecar,
               knownBundle.map({ scanner.stampsUnchanged(bundle: task.path, $0) }) ?? true {
                guard firstVisit(task, status, log: &log) else { return }
                walkUnchanged(task, isBundle: knownBundle != nil, log: &log)
                return
            }
        }
        walkListing(task, sidecar: sidecar, log: &log)
    }

    /// False, with a problem noted, when the directory is its own ancestor (a bind-mount loop).
    private func firstVisit(_ task: DirectoryTask, _ status: FileStatus, log: inout WorkerLog) -> Bool {
        if task.node.identify(device: status.device, inode: status.inode) { return true }
        log.problems.append("\(task.path): the directory contains itself (a bind mount loop?); not walked again")
        return false
    }

    /// The directory is as catalogued: its subdirectories are known without listing it.
    private func walkUnchanged(_ task: DirectoryTask, isBundle: Bool, log: inout WorkerLog) {
        scanner.progress.visitedDirectory(listed: false)
        recordVisit(task.path, log: &log)
        // Its archives are as they were unless written in place, which no directory's ctime shows.
        if let archives = scanner.known.archives[task.path] {
            readArchives(in: task.path, descriptor: nil, names: Array(archives.keys), listed: false)
        }
        if isBundle { recordPresent(task.path, log: &log) }
        let structure = isBundle ? scanner.known.structures[task.path] ?? BundleStructure(patterns: []) : nil
        let children = scanner.known.children(of: task.path).map { name in
            task.child(name, hasSidecar: !scanner.known.sidecars.isEmpty && scanner.known.sidecars[task.path.appending(name)] != nil,
                       bundle: structure, listings: nil, opened: nil)
        }
        if scanner.options.shallow {
            log.childStarts += children.map(\.start)
        } else {
            schedule(children, under: task.node)
        }
    }

    private func walkListing(_ task: DirectoryTask, sidecar: FileStamp?, log: inout WorkerLog) {
        let path = task.path
        var descriptor: Descriptor?
        let status: FileStatus
        let entries: [DirectoryEntry]
        if let listed = task.listing {
            // An inspection above listed it already (its watch, if any, was added before).
            status = listed.status
            entries = listed.entries
            descriptor = listed.descriptor
            scanner.options.watchDirectory?(path, listed.descriptor, true)
        } else {
            do {
                let opened = try task.parent?.open(task.name, flags: Descriptor.directoryNoFollow)
                    ?? Descriptor.open(path, flags: Descriptor.directoryNoFollow)
                scanner.options.watchDirectory?(path, opened, true)
                status = try opened.status() // before listing: a change during the listing shows next time
                entries = try opened.listDirectoryTyped()
                descriptor = opened
            } catch let error as SystemError where error.errno == ENOENT || error.errno == ENOTDIR || error.errno == ELOOP {
                return
            } catch {
                keepKnownSubtree(of: path, because: "\(error)", log: &log)
                return
            }
        }
        guard status.type == .directory, firstVisit(task, status, log: &log) else { return }
        scanner.progress.visitedDirectory(listed: true)
        if tracksVisits {
            recordVisit(path, log: &log)
            if let enclosing = task.enclosingBundle { log.dirtyBundles.append(enclosing) }
        }

        var record: BundleRecord?
        var listings: [FilePath: ListingRecorder.Listed] = task.listingsBelow
        if !task.isStructural {
            let relative = scanner.root.relative(path) ?? .here
            let context = DirectoryContext(path: path, relativePath: relative, descriptor: descriptor, entries: entries, hasSidecar: task.hasSidecar)
            var beforeListing: (@Sendable (FilePath, Descriptor) -> Void)?
            if let watch = scanner.options.watchDirectory { beforeListing = { path, descriptor in watch(path, descriptor, false) } }
            let recorder = ListingRecorder(beforeListing: beforeListing)
            record = scanner.inspector.inspect(context, recorder: recorder)
            for (listedPath, listed) in recorder.listings {
                if let below = listedPath.relative(to: path), !below.isEmpty { listings[below] = listed }
            }
        }
        if record != nil { scanner.progress.readBundle() }
        emit(for: path, record.map(TreeScanner.Outcome.bundle) ?? .notABundle, log: &log)
        readArchives(in: path, descriptor: descriptor, names: entries.lazy.filter { $0.type == .regular || $0.type == .unknown }.map(\.name))

        let now = Clocks.wallNanoseconds()
        task.node.row.withLock {
            $0 = DirectoryRow(
                path: path, changeTime: status.changeTime, inode: status.inode, device: status.device,
                lowercasedExtension: path.lastComponent.lowercasedExtension,
                trusted: status.changeTime < now - scanner.options.distrustWindow, sidecar: sidecar)
        }
        // AppleDouble sidecars are rare outside Mac-written shares: build the set only when needed.
        let sidecarNames = entries.contains { $0.name.hasPrefix("._") } ? Set(entries.lazy.map(\.name).filter { $0.hasPrefix("._") }) : []
        let structure = record.map(BundleStructure.init(record:))
        let listingsByChild = ListingsByChild(listings)
        var children: [DirectoryTask] = []
        for entry in entries where entry.type == .directory {
            if !scanner.options.excluded.isEmpty && scanner.options.excluded.contains(path.appending(entry.name)) { continue }
            let hasSidecar = !sidecarNames.isEmpty && sidecarNames.contains(entry.name.prefixed("._"))
            var child = task.child(entry.name, hasSidecar: hasSidecar, bundle: structure, listings: listingsByChild[entry.name], opened: descriptor)
            child.inode = entry.inode
            children.append(child)
        }
        if scanner.options.shallow {
            log.childStarts += children.map(\.start)
        } else {
            schedule(children, under: task.node)
        }
    }

    /// A directory that cannot be read keeps what the catalogue knew under it: nothing is lost
    /// because of a permission problem that may be temporary.
    private func keepKnownSubtree(of path: FilePath, because problem: String, log: inout WorkerLog) {
        let known = scanner.known
        log.problems.append(problem)
        var pending = [path]
        while let next = pending.popLast() {
            guard known.directory(at: next) != nil else { continue }
            recordVisit(next, log: &log)
            if known.bundles[next] != nil { recordPresent(next, log: &log) }
            pending += known.children(of: next).map { next.appending($0) }
        }
    }

    private func recordVisit(_ path: FilePath, log: inout WorkerLog) {
        if let ordinal = scanner.known.directory(at: path)?.ordinal { log.visitedKnown.append(ordinal) } else { log.visited.append(path) }
    }

    private func recordPresent(_ bundle: FilePath, log: inout WorkerLog) {
        if let ordinal = scanner.known.directory(at: bundle)?.ordinal { log.presentKnown.append(ordinal) } else { log.presentBundles.append(bundle) }
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

    private func sidecarStamp(of path: FilePath) -> FileStamp? {
        let name = path.lastComponent.prefixed("._")
        guard let status = try? FileStatus.of(path.parent.appending(name)) else { return nil }
        return FileStamp(path: FilePath("..").appending(name), changeTime: status.changeTime, size: status.size, inode: status.inode)
    }

    /// The archives among a directory's files (rule 26): each read again when it is new or its
    /// stamp changed, and, for a listed directory, those catalogued there and gone, dropped.
    private func readArchives(in directory: FilePath, descriptor: Descriptor?, names: some Sequence<FileName>, listed: Bool = true) {
        var present: [FileName] = []
        for name in names where ArchiveInspector.isArchiveName(name) {
            let path = directory.appending(name)
            guard let status = (descriptor.map { try? $0.status(of: name) } ?? (try? FileStatus.of(path))), status.type == .regular else { continue }
            present.append(name)
            if let known = scanner.known.archives[directory]?[name], known.matches(status) { continue }
            guard let relative = scanner.root.relative(path) else { continue }
            let result = scanner.archives.inspect(archive: path) {
                let file = try scanner.root.open(relative, flags: Descriptor.probeRead | O_NOFOLLOW)
                guard try file.status().inode == status.inode else { throw ArchiveError("replaced while it was read") }
                return file
            }
            let row = ArchiveRow(path: path, changeTime: status.changeTime, size: status.size, inode: status.inode,
                                 members: result.members, error: result.error)
            channel.append(.archive(row, result.records))
            for _ in result.records { scanner.progress.readBundle() }
        }
        // Said only where it can matter: archives here now, or here before (the index's known tree;
        // the watcher, which re-lists few directories and keeps no known tree, says it always).
        if listed && (!present.isEmpty || scanner.known.archives[directory] != nil || scanner.options.shallow) {
            channel.append(.archivesListed(directory: directory, names: present))
        }
    }
}
