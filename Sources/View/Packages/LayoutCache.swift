import Synchronization
import SystemCalls

/// Tar layouts of recently used packages, by package path, bounded by their total member count
/// (25,000 by default: a member costs about 1 KB with its names, and a package node keeps its size
/// and fingerprint itself, so only packages being read need their layout kept). A `stat` of a
/// package needs its exact size, so its layout is made at lookup and reused for reads; the
/// watcher's updates drop the layouts of packages whose contents changed.
final class LayoutCache: Sendable {
    private struct State {
        var layouts: [FilePath: (layout: PackageLayout, lastUse: UInt64)] = [:]
        var members = 0
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())
    let memberLimit: Int

    init(memberLimit: Int) { self.memberLimit = memberLimit }

    /// The layout of a package, made now if not cached.
    func layout(of packagePath: FilePath) throws -> PackageLayout {
        if let cached = state.withLock({ state -> PackageLayout? in
            guard let cached = state.layouts[packagePath] else { return nil }
            state.clock += 1
            state.layouts[packagePath]?.lastUse = state.clock
            return cached.layout
        }) {
            return cached
        }
        let layout = try PackageLayout(packagePath: packagePath)
        state.withLock { state in
            state.clock += 1
            if let old = state.layouts.updateValue((layout, state.clock), forKey: packagePath) { state.members -= old.layout.tar.members.count }
            state.members += layout.tar.members.count
            guard state.members > memberLimit else { return }
            for (path, value) in state.layouts.sorted(by: { $0.value.lastUse < $1.value.lastUse })
            where path != packagePath && state.members > memberLimit / 2 {
                state.layouts[path] = nil
                state.members -= value.layout.tar.members.count
            }
        }
        return layout
    }

    /// Drops the layouts of packages at, around or under `path`; returns their paths.
    @discardableResult
    func invalidate(touching path: FilePath) -> [FilePath] {
        state.withLock { state in
            let hit = state.layouts.keys.filter { path.isWithin($0) || $0.isWithin(path) }
            for key in hit { state.members -= state.layouts.removeValue(forKey: key)?.layout.tar.members.count ?? 0 }
            return hit
        }
    }

    func removeAll() { state.withLock { $0 = State() } }
}
