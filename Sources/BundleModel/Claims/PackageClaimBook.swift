public import SystemCalls

/// Rule 14 kept current one bundle at a time, for the watcher: what each bundle that has document
/// types or type declarations brings, its package claims, and the type database they were
/// computed with. A change to a bundle's document types recomputes that bundle's claims alone;
/// only a change to type declarations (which count for everyone) recomputes them all, still from
/// memory. Equal to `ClaimResolver.claims(of:)` over the same bundles after every change.
public struct PackageClaimBook: Sendable {
    /// What a change did to the claims.
    public enum Outcome: Sendable, Equatable {
        case unchanged
        /// These bundles' claims are recomputed; no other's changed.
        case recomputed(Set<FilePath>)
        /// Type declarations changed: every claim was recomputed.
        case rebuilt
    }

    private let systemTypes: SystemPackageTypes
    private var sources: [FilePath: ClaimResolver.Application] = [:]
    /// The keys of `sources`, in byte order, for finding what a removed subtree held.
    private var paths: [FilePath] = []
    private var claimsBySource: [FilePath: [PackageClaim]] = [:]
    private var types: TypeDatabase
    private var packageTypes: Set<String> = []

    public init(_ applications: [ClaimResolver.Application], systemTypes: SystemPackageTypes = .standard) {
        self.systemTypes = systemTypes
        types = TypeDatabase(system: systemTypes, applications: [])
        for application in applications {
            if let relevant = Self.relevant(application, neverPackages: systemTypes.neverPackages) { sources[application.path] = relevant }
        }
        paths = sources.keys.sorted()
        rebuild()
    }

    /// Every claim, in `ClaimResolver`'s order.
    public var claims: [PackageClaim] { claimsBySource.values.flatMap { $0 }.sorted(by: ClaimResolver.precedes) }

    /// The claims of these bundles only.
    public func claims(of paths: Set<FilePath>) -> [PackageClaim] { paths.flatMap { claimsBySource[$0] ?? [] } }

    /// What a bundle brings now (nil when it is gone, or brings no document types or declarations).
    public func source(at path: FilePath) -> ClaimResolver.Application? { sources[path] }

    /// The bundles at or under a path that bring something.
    public func sources(under path: FilePath) -> [FilePath] {
        // Whatever lies under a path starts with its bytes, and those sort together from it.
        var found: [FilePath] = []
        var index = lowerBound(path)
        while index < paths.count, paths[index].string.utf8.starts(with: path.string.utf8) {
            if paths[index].isWithin(path) { found.append(paths[index]) }
            index += 1
        }
        return found
    }

    /// Records what bundles bring now (nil: gone or bringing nothing) and recomputes the claims
    /// that depend on it. `rewritten`: bundles whose rows were deleted and written again (a
    /// folder replaced within one batch), whose stored claims went with the old rows: their
    /// claims are given again even when what they bring did not change.
    public mutating func update(_ changes: [FilePath: ClaimResolver.Application?], rewritten: Set<FilePath> = []) -> Outcome {
        var recompute = Set<FilePath>()
        var declarationsChanged = false
        for (path, new) in changes {
            let application = new.flatMap { Self.relevant($0, neverPackages: systemTypes.neverPackages) }
            let old = sources[path]
            guard old?.documentTypes != application?.documentTypes || old?.typeDeclarations != application?.typeDeclarations else {
                if rewritten.contains(path), application != nil { recompute.insert(path) }
                continue
            }
            if (old?.typeDeclarations ?? []) != (application?.typeDeclarations ?? []) { declarationsChanged = true }
            if let application {
                if old == nil { paths.insert(path, at: lowerBound(path)) }
                sources[path] = application
            } else {
                sources[path] = nil
                let index = lowerBound(path)
                if index < paths.count, paths[index] == path { paths.remove(at: index) }
            }
            recompute.insert(path)
        }
        if declarationsChanged {
            rebuild()
            return .rebuilt
        }
        guard !recompute.isEmpty else { return .unchanged }
        for path in recompute { claimsBySource[path] = claims(of: sources[path]) }
        return .recomputed(recompute)
    }

    private mutating func rebuild() {
        types = TypeDatabase(system: systemTypes, applications: paths.map { ($0, sources[$0]!.typeDeclarations) })
        packageTypes = types.typesConforming(to: TypeConformance.packageType)
        claimsBySource = [:]
        for (path, source) in sources { claimsBySource[path] = claims(of: source) }
    }

    /// A source's claims; nil for none, so that only claiming bundles are kept.
    private func claims(of source: ClaimResolver.Application?) -> [PackageClaim]? {
        guard let source else { return nil }
        let claims = ClaimResolver.claims(of: source, types: types, packageTypes: packageTypes)
        return claims.isEmpty ? nil : claims
    }

    private func lowerBound(_ path: FilePath) -> Int {
        var low = 0, high = paths.count
        while low < high {
            let middle = (low + high) / 2
            if paths[middle] < path { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// What of an application can bring a package claim, whatever any other declares: its type
    /// declarations, and the document types that are packages (LSTypeIsPackage) or name content
    /// types the system does not fix as non-packages (`SystemPackageTypes.neverPackages`); names
    /// and roles, which no claim carries, left out. Nil when nothing is left. The book lives as
    /// long as a watcher, and at a million entries most of 45,000 applications claim only images,
    /// text or movies: it kept every one.
    public static func relevant(_ application: ClaimResolver.Application, neverPackages: Set<String>) -> ClaimResolver.Application? {
        var relevant = application
        relevant.documentTypes = application.documentTypes.compactMap { documentType in
            let contentTypes = documentType.contentTypes.filter { !neverPackages.contains(TypeDatabase.key($0)) }
            guard documentType.isPackage || !contentTypes.isEmpty else { return nil }
            return DocumentType(extensions: documentType.isPackage ? documentType.extensions : [], contentTypes: contentTypes,
                                isPackage: documentType.isPackage, iconPath: documentType.iconPath)
        }
        return relevant.documentTypes.isEmpty && relevant.typeDeclarations.isEmpty ? nil : relevant
    }
}
