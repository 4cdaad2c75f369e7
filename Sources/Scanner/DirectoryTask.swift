import BundleModel
import Records
import Synchronization
import SystemCalls

/// A directory waiting to be walked.
struct DirectoryTask: Sendable {
    var path: FilePath
    var hasSidecar: Bool
    /// The nearest catalogued bundle or package above it.
    var enclosingBundle: FilePath?
    /// Part of the enclosing bundle's own structure (its `Contents`, say): never a bundle itself.
    var isStructural = false
    /// The enclosing bundle's structural paths below this directory.
    var structure = BundleStructure(patterns: [])
    /// Its listing, when an inspection above already made it.
    var listing: ListingRecorder.Listed?
    /// Listings of directories below it that an inspection made, by relative path.
    var listingsBelow: [FilePath: ListingRecorder.Listed] = [:]
    /// The parent directory, open while any of its subdirectories waits: opening relative to it
    /// spares the kernel a walk of the whole path.
    var parent: Descriptor?
    /// From the parent's listing, when it was listed.
    var inode: UInt64 = 0
    var node: Node

    var name: FileName { path.lastComponent }

    /// What a later scan needs to start here.
    var start: ScanStart {
        ScanStart(path: path, hasSidecar: hasSidecar, enclosingBundle: enclosingBundle, isStructural: isStructural, structure: structure, inode: inode)
    }

    /// The task for a subdirectory, carrying the structure of `bundle` when this directory is one.
    func child(
        _ name: FileName, hasSidecar: Bool, bundle: BundleStructure?, listings: [FilePath: ListingRecorder.Listed], opened: Descriptor?
    ) -> DirectoryTask {
        let (isStructural, below) = (bundle ?? structure).descending(into: name)
        var task = DirectoryTask(
            path: path.appending(name), hasSidecar: hasSidecar,
            enclosingBundle: bundle != nil ? path : enclosingBundle, isStructural: isStructural, structure: below,
            parent: opened, node: Node(parent: node))
        if !listings.isEmpty {
            let top = FilePath(name)
            task.listing = listings[top]
            for (relative, listed) in listings {
                if let below = relative.relative(to: top), !below.isEmpty { task.listingsBelow[below] = listed }
            }
        }
        return task
    }
}

/// Post-order bookkeeping: a directory's row is released only when its own listing and all its
/// subdirectories are done, so the catalogue never holds a row for a half-walked directory. The
/// node also remembers the directory's identity, so a walk can recognize a loop through its
/// ancestors (a bind mount of a parent), as fts does.
final class Node: Sendable {
    let parent: Node?
    let pending = Atomic<Int>(1)
    let row = Mutex<DirectoryRow?>(nil)
    private let device = Atomic<UInt64>(0)
    private let inode = Atomic<UInt64>(0)

    init(parent: Node?) { self.parent = parent }

    /// Records this directory's identity; false when an ancestor has the same one (a loop).
    func identify(device: UInt64, inode: UInt64) -> Bool {
        self.device.store(device, ordering: .relaxed)
        self.inode.store(inode, ordering: .relaxed)
        var ancestor = parent
        while let node = ancestor {
            if node.inode.load(ordering: .relaxed) == inode && node.device.load(ordering: .relaxed) == device { return false }
            ancestor = node.parent
        }
        return true
    }
}
