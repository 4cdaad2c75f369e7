/// Which types conform, directly or through their parents, to `com.apple.package` (rule 14),
/// for a set of declarations that is not yet a type database (the system's table while it is
/// read). The conformance is rule 28's: `TypeDatabase` decides it, written once.
public struct TypeConformance: Sendable {
    public static let packageType = "com.apple.package"

    /// Declarations by lower-cased identifier.
    public let declarations: [String: [TypeDeclaration]]
    /// Lower-cased identifiers of every type that conforms to `com.apple.package`.
    private let packageTypes: Set<String>
    /// Lower-cased identifiers of the types that do not conform to `com.apple.package` and whose
    /// parents, all the way up, are declared here too. When these declarations win (the system's
    /// table, rule 28), no application's declaration can make them packages.
    public let neverPackages: Set<String>

    public init(_ declarations: [TypeDeclaration]) {
        let grouped = Dictionary(grouping: declarations) { TypeDatabase.key($0.identifier) }
        let packages = TypeDatabase(TypeDatabase.declarations(declarations, by: .root)).typesConforming(to: Self.packageType)
        self.declarations = grouped
        packageTypes = packages
        var closed: [String: Bool] = [:]
        /// Whether a type and every parent up from it are declared here (a cycle counts as not).
        func isClosed(_ key: String, _ visiting: inout Set<String>) -> Bool {
            if let known = closed[key] { return known }
            guard let found = grouped[key], visiting.insert(key).inserted else { return false }
            let result = found.allSatisfy { $0.conformsTo.allSatisfy { isClosed(TypeDatabase.key($0), &visiting) } }
            closed[key] = result
            return result
        }
        neverPackages = Set(grouped.keys.filter { key in
            var visiting = Set<String>()
            return !packages.contains(key) && isClosed(key, &visiting)
        })
    }

    public func conformsToPackage(_ type: String) -> Bool { packageTypes.contains(TypeDatabase.key(type)) }
}
