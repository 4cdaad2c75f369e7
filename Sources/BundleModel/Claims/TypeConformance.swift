/// The conformance tree of uniform type identifiers (rule 14): which types conform, directly or
/// through their parents, to `com.apple.package`. Identifiers compare case-insensitively; a type
/// declared more than once conforms when any declaration does.
public struct TypeConformance: Sendable {
    public static let packageType = "com.apple.package"

    /// Declarations by lower-cased identifier.
    public let declarations: [String: [TypeDeclaration]]
    /// Lower-cased identifiers of every type that conforms to `com.apple.package`, found by one
    /// walk from it down the reversed tree: linear in the declarations, cycles and all.
    private let packageTypes: Set<String>

    public init(_ declarations: [TypeDeclaration]) {
        var byIdentifier: [String: [TypeDeclaration]] = [:]
        var children: [String: [String]] = [:]
        for declaration in declarations {
            let identifier = declaration.identifier.lowercased()
            byIdentifier[identifier, default: []].append(declaration)
            for parent in declaration.conformsTo { children[parent.lowercased(), default: []].append(identifier) }
        }
        var found: Set<String> = [Self.packageType]
        var pending = [Self.packageType]
        while let type = pending.popLast() {
            for child in children[type] ?? [] where found.insert(child).inserted { pending.append(child) }
        }
        self.declarations = byIdentifier
        packageTypes = found
    }

    public func conformsToPackage(_ type: String) -> Bool { packageTypes.contains(type.lowercased()) }
}
