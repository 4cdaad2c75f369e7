import Synchronization

/// Counters a progress line can read while a scan runs.
public final class ScanProgress: Sendable {
    private let directories = Atomic<Int>(0)
    private let bundles = Atomic<Int>(0)
    private let listed = Atomic<Int>(0)

    public init() {}

    public var directoriesVisited: Int { directories.load(ordering: .relaxed) }
    public var directoriesListed: Int { listed.load(ordering: .relaxed) }
    public var bundlesRead: Int { bundles.load(ordering: .relaxed) }

    func visitedDirectory(listed didList: Bool) {
        directories.add(1, ordering: .relaxed)
        if didList { listed.add(1, ordering: .relaxed) }
    }

    func readBundle() { bundles.add(1, ordering: .relaxed) }
}
