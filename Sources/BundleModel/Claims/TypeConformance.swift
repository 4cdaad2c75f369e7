/// Which types conform, directly or through their parents, to `com.apple.package` (rule 14),
/// for a set of declarations that is not yet a type database (the system's table while it is
/// read). The conformance is rule 28's: `TypeDatabase` decides it, written once.
public struct TypeConformance: Sendable {
    public static let packageType = "com.apple.package"

    /// Declarations by lower-cased identifier.
    public let declarations: [String: [TypeDeclaration]]
    /// Lower-cased identifiers of every type that conforms to `com.apple.package`.
    private let packageTypes: Set<String>

    public init(_ declarations: [TypeDeclaration]) {
        self.declarations = Dictionary(grouping: declarations) { TypeDatabase.key($0.identifier) }
        packageTypes = TypeDatabase(TypeDatabase.declarations(declarations, by: .root)).typesConforming(to: Self.packageType)
    }

    public func conformsToPackage(_ type: String) -> Bool { packageTypes.contains(TypeDatabase.key(type)) }
}
