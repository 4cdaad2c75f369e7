/// The directory types a Mac knows without any third-party application (rule 1, `system-type`),
/// read from `SystemPackageTypes.tsv`, which SwiftPM embeds in the binary: the facts live in one
/// data file with their sources, not in code.
public struct SystemPackageTypes: Sendable {
    /// Every row, as the type declarations the claims machinery (rule 14) understands.
    public let declarations: [TypeDeclaration]
    /// Lower-cased extensions of the rows that conform to `com.apple.package`.
    public let packageExtensions: Set<String>
    /// Lines that could not be read, with their numbers (none in the shipped table: a test checks).
    public let malformedLines: [Int]

    public static let standard = SystemPackageTypes(tsv: PackageResources.SystemPackageTypes_tsv)

    public init(tsv: [UInt8]) {
        var declarations: [TypeDeclaration] = []
        var malformed: [Int] = []
        let lines = String(decoding: tsv, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        for (number, line) in zip(1..., lines) where !line.isEmpty && !line.hasPrefix("#") {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count == 4, !columns[0].isEmpty, !columns[2].isEmpty else {
                malformed.append(number)
                continue
            }
            func list(_ column: Substring) -> [String] { column == "-" ? [] : column.split(separator: ",").map(String.init) }
            declarations.append(TypeDeclaration(
                identifier: String(columns[0]), conformsTo: list(columns[2]),
                extensions: DocumentType.normalizedExtensions(list(columns[1])), exported: true))
        }
        self.declarations = declarations
        malformedLines = malformed
        let conformance = TypeConformance(declarations)
        packageExtensions = Set(declarations.filter { conformance.conformsToPackage($0.identifier) }.flatMap(\.extensions))
    }
}
