/// The type declarations a Mac makes without any third-party application, read from
/// `SystemTypes.tsv`, which SwiftPM embeds in the binary: the facts live in one data file with their
/// sources, not in code. One table serves rule 1 (`system-type`: the package types) and rule 28 (the
/// system's part of the type database: the common content types and their conformance chains).
public struct SystemPackageTypes: Sendable {
    /// One row of the table: a declaration as the claims machinery (rule 14) understands it, plus
    /// what only the system's table records, for rule 28's type database.
    public struct Row: Sendable, Hashable {
        public let declaration: TypeDeclaration
        /// `public.mime-type` tags, as declared.
        public let mimeTypes: [String]
        /// Where the declaration comes from.
        public let source: String
        /// `UTTypeDescription`, as declared; nil when the table has none (`-`).
        public let description: String?
    }

    public let rows: [Row]
    /// Every row's declaration, for the conformance tree.
    public let declarations: [TypeDeclaration]
    /// Lower-cased extensions of the rows that conform to `com.apple.package`, but for rule 1's
    /// built-in set: the `extension` reason covers those (`Chess.app` keeps that one reason), and
    /// their rows are there only as parents (a `.service` conforms through `app`'s type).
    public let packageExtensions: Set<String>
    /// The table's types that no application's declaration can make packages (rule 14's claims
    /// need not look at them; `PackageClaimBook.relevant`).
    public let neverPackages: Set<String>
    /// Lines that could not be read, with their numbers (none in the shipped table: a test checks).
    /// Every row has six columns, none blank: an identifier, its conformance (`-` for none), a
    /// source and a description (`-` for none) among them.
    public let malformedLines: [Int]

    public static let standard = SystemPackageTypes(tsv: PackageResources.SystemTypes_tsv)

    public init(tsv: [UInt8]) {
        var rows: [Row] = []
        var malformed: [Int] = []
        // Split as bytes: every process that inspects a bundle reads the table once, and splitting
        // it as Characters (grapheme breaking of its 39 kB) took about 15 ms of its start.
        let lines = tsv.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (number, line) in zip(1..., lines) where !line.isEmpty && line.first != UInt8(ascii: "#") {
            let columns = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            guard columns.count == 6, !columns.contains(where: \.isEmpty) else {
                malformed.append(number)
                continue
            }
            func list(_ column: String) -> [String] {
                column == "-" ? [] : column.utf8.split(separator: UInt8(ascii: ",")).map { String(decoding: $0, as: UTF8.self) }
            }
            rows.append(Row(
                declaration: TypeDeclaration(
                    identifier: columns[0], conformsTo: list(columns[3]),
                    extensions: DocumentType.normalizedExtensions(list(columns[1])), exported: true),
                mimeTypes: list(columns[2]), source: columns[4],
                description: columns[5] == "-" ? nil : columns[5]))
        }
        self.rows = rows
        declarations = rows.map(\.declaration)
        malformedLines = malformed
        let conformance = TypeConformance(declarations)
        packageExtensions = Set(declarations.filter { conformance.conformsToPackage($0.identifier) }.flatMap(\.extensions))
            .subtracting(PackageRules.builtInPackageExtensions)
        neverPackages = conformance.neverPackages
    }
}
