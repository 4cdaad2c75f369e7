import CompactStorage
import Synchronization
import SystemCalls

/// Tar layouts of recently used packages, by package path, bounded by their total member count
/// (25,000 by default: a member costs about 1 KB with its names, and a package node keeps its size
/// and fingerprint itself, so only packages being read need their layout kept). A `stat` of a
/// package needs its exact size, so its layout is made at lookup and reused for reads; the
/// watcher's updates drop the layouts of packages whose contents changed.
final class LayoutCache: Sendable {
    private let layouts: Mutex<BoundedCache<FilePath, PackageLayout>>

    init(memberLimit: Int) { layouts = Mutex(BoundedCache(limit: memberLimit, keeping: memberLimit / 2)) }

    /// The layout of a package, made now if not cached.
    func layout(of packagePath: FilePath) throws -> PackageLayout {
        if let cached = layouts.withLock({ $0.value(for: packagePath) }) { return cached }
        let layout = try PackageLayout(packagePath: packagePath)
        layouts.withLock { _ = $0.store(layout, for: packagePath, weight: layout.tar.members.count) }
        return layout
    }

    /// Drops the layouts of packages at, around or under `path`; returns their paths.
    @discardableResult
    func invalidate(touching path: FilePath) -> [FilePath] {
        layouts.withLock { $0.removeAll { path.isWithin($0) || $0.isWithin(path) } }
    }

    func removeAll() { layouts.withLock { $0.removeAll() } }
}
