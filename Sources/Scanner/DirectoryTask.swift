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

    /// The task for a subdirectory, carrying the structure of `bundle` when this directory is one,
    /// and the listings an inspection made of it and below it (`ListingsByChild`).
    func child(
        _ name: FileName, hasSidecar: Bool, bundle: BundleStructure?, listings: ListingsByChild.Entry?, opened: Descriptor?
    ) -> DirectoryTask {
        let (isStructural, below) = (bundle ?? structure).descending(into: name)
        var task = DirectoryTask(
            path: path.appending(name), hasSidecar: hasSidecar,
            enclosingBundle: bundle != nil ? path : enclosingBundle, isStructural: isStructural, structure: below,
            parent: opened, node: Node(parent: node))
        if let listings {
            task.listing = listings.own
            task.listingsBelow = listings.below
        }
        return task
    }
}

/// The listings an inspection made below a directory (by path relative to it), sorted once by
/// the subdirectory they lie in: each subdirectory's task takes its own, instead of every
/// subdirectory testing every listing (a bundle's lprojs times its listings).
struct ListingsByChild {
    struct Entry {
        var own: ListingRecorder.Listed?
        var below: [FilePath: ListingRecorder.Listed] = [:]
    }

    private(set) var entries: [FileName: Entry] = [:]

    init(_ listings: [FilePath: ListingRecorder.Listed]) {
        for (relative, listed) in listings {
            let text = relative.string
            // Names never hold a slash (`FileNameCoding`): the first one ends the child's name.
            if let slash = text.utf8.firstIndex(of: UInt8(ascii: "/")) {
                let rest = text[text.utf8.index(after: slash)...]
                guard !rest.isEmpty else { continue }
                entries[FileName(String(text[..<slash])), default: Entry()].below[FilePath(String(rest))] = listed
            } else if !text.isEmpty {
                entries[FileName(text), default: Entry()].own = listed
            }
        }
    }

    subscript(name: FileName) -> Entry? { entries.isEmpty ? nil : entries[name] }
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
