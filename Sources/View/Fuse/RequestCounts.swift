import Synchronization

/// How many requests of each kind the kernel sent: a figure that, unlike a time, does not drift
/// with the machine's load. `make bench` reads it, before and after each workload, from the
/// `user.bundlefs.requests` attribute of `MNT/.bundlefs`.
final class RequestCounts: Sendable {
    enum Kind: Int, CaseIterable, Sendable {
        case lookup, forget, getattr, readlink, opendir, readdir, readdirplus, releasedir, open, read, release, statfs,
             getxattr, listxattr
        /// Not a request: a handler ranking run for `user.bundle.default-application`
        /// (`DefaultApplications`), the one costly answer of an xattr request.
        case ranking
        /// Not requests: catalogue queries of by-uuid (every UUID at once for a listing, or one UUID)
        /// and of the symbol stores (a top level or a range of keys), so that what an update makes
        /// the daemon read again can be counted.
        case uuidListingQuery, uuidQuery, symbolQuery
        /// Not requests: a directory's listing made (`openDirectory`: one per pass, however many
        /// READDIRs read it), and a symbol store's file looked for (opened and checked), so that
        /// a first listing's cost per entry can be counted.
        case listing, symbolFileFind
        /// Not requests: a symbol store directory's listing made ahead (`ReadAhead`), and one
        /// given to the request that asked for it.
        case readAhead, readAheadUsed
        /// Not requests: notifications the daemon sent the kernel to forget a node's attributes,
        /// pages and listing (`inval_inode`), or a name in a directory (`inval_entry`).
        case invalidateInode, invalidateEntry
        /// Not a request: an entry of a READDIRPLUS reply sent with its attributes (one the kernel
        /// held is sent without: `ViewFileSystem.plusEntry`).
        case plusEntry
    }

    private let counts = Mutex([UInt64](repeating: 0, count: Kind.allCases.count))

    func count(_ kind: Kind) { counts.withLock { $0[kind.rawValue] &+= 1 } }

    /// `lookup=12 getattr=3 ...`, every kind, in a fixed order.
    var summary: String {
        let values = counts.withLock { $0 }
        return Kind.allCases.map { "\($0)=\(values[$0.rawValue])" }.joined(separator: " ")
    }

    static let attributeName = "user.bundlefs.requests"
}
