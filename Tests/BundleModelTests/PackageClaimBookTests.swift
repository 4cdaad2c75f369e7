@testable import BundleModel
import Fixtures
import SystemCalls
import Testing

/// Rule 14 kept one bundle at a time (the watcher's book) must give what computing it from
/// scratch gives, after any sequence of changes.
@Suite struct PackageClaimBookTests {
    static let extensions = ["pkgdoc", "sheet", "deck", "notes", "album"]
    static let types = ["org.example.sheet", "org.example.deck", "com.apple.package", "public.data", "org.example.chain"]

    /// An application that may claim extensions as packages, claim types, and declare types
    /// (which may conform to a package type directly or through another declared type).
    static func randomSource(_ path: FilePath, _ generator: inout SeededGenerator) -> ClaimResolver.Application {
        func pick<T>(_ values: [T]) -> T { values[Int(generator.next() % UInt64(values.count))] }
        var documentTypes: [DocumentType] = []
        for _ in 0..<Int(generator.next() % 3) {
            documentTypes.append(DocumentType(extensions: [pick(extensions)], contentTypes: generator.next() % 2 == 0 ? [pick(types)] : [],
                                              isPackage: generator.next() % 3 == 0, iconPath: path.appending("Contents/Resources/doc.icns")))
        }
        var declarations: [TypeDeclaration] = []
        for _ in 0..<Int(generator.next() % 2) {
            declarations.append(TypeDeclaration(identifier: pick(types), conformsTo: [pick(types)], extensions: [pick(extensions)],
                                                exported: generator.next() % 2 == 0))
        }
        return ClaimResolver.Application(path: path, documentTypes: documentTypes, typeDeclarations: declarations)
    }

    @Test func aBookKeptCurrentEqualsTheClaimsComputedFromScratch() {
        var generator = SeededGenerator(seed: 0x14_B00C)
        let paths = (0..<12).map { FilePath("/apps/Group\($0 % 3)/App\($0).app") } + [FilePath("/apps/Group0-x/Odd.app")]
        var current: [FilePath: ClaimResolver.Application] = [:]
        var book = PackageClaimBook([])
        var outcomes: Set<String> = []
        for step in 0..<600 {
            var changes: [FilePath: ClaimResolver.Application?] = [:]
            for _ in 0..<1 + Int(generator.next() % 3) {
                let path = paths[Int(generator.next() % UInt64(paths.count))]
                let source: ClaimResolver.Application? = generator.next() % 4 == 0 ? nil : Self.randomSource(path, &generator)
                changes[path] = .some(source)
                current[path] = source
            }
            if generator.next() % 10 == 0 {
                // A subtree removed: what `sources(under:)` names goes.
                let group = FilePath("/apps/Group\(generator.next() % 3)")
                for path in book.sources(under: group) {
                    #expect(path.isWithin(group))
                    changes[path] = .some(nil)
                    current[path] = nil
                }
            }
            switch book.update(changes) {
            case .unchanged: outcomes.insert("unchanged")
            case .recomputed: outcomes.insert("recomputed")
            case .rebuilt: outcomes.insert("rebuilt")
            }
            let expected = ClaimResolver.claims(of: current.values.sorted { $0.path < $1.path })
            #expect(book.claims == expected, "step \(step)")
            if book.claims != expected { break }
        }
        // Every path through `update` was taken.
        #expect(outcomes == ["unchanged", "recomputed", "rebuilt"])
    }

    @Test func sourcesUnderAPathAreThoseWithinIt() {
        let source = { (path: FilePath) in
            ClaimResolver.Application(path: path, documentTypes: [DocumentType(extensions: ["pkgdoc"], isPackage: true)], typeDeclarations: [])
        }
        // `Apps-old` and `Apps.bak` sort between `Apps` and `Apps/...` by bytes; `Apps` itself is
        // within `Apps`.
        let paths: [FilePath] = ["/t/Apps", "/t/Apps-old/A.app", "/t/Apps.bak/B.app", "/t/Apps/C.app", "/t/Apps/Sub/D.app", "/t/Appsx/E.app", "/t/B.app"]
        let book = PackageClaimBook(paths.map(source))
        #expect(book.sources(under: "/t/Apps") == ["/t/Apps", "/t/Apps/C.app", "/t/Apps/Sub/D.app"])
        #expect(book.sources(under: "/t/Apps/C.app") == ["/t/Apps/C.app"])
        #expect(book.sources(under: "/t/Ap").isEmpty)
        #expect(book.sources(under: "/").count == paths.count)
        // A bundle that brings nothing is not kept.
        #expect(PackageClaimBook([ClaimResolver.Application(path: "/t/X.app", documentTypes: [], typeDeclarations: [])]).sources(under: "/").isEmpty)
    }

    /// The book keeps only what can claim (`relevant`): document types naming system types that
    /// no declaration can make packages are dropped, and the claims are still those computed from
    /// every application whole, whatever the applications declare (the system's own identifiers
    /// included, which lose to the system's declarations).
    @Test func whatCannotClaimIsDroppedAndTheClaimsStay() {
        let system = ["public.jpeg", "public.image", "public.data", "public.item", "public.directory", "com.apple.package", "com.apple.bundle",
                      "com.apple.application-bundle", "public.folder", "public.plain-text"]
        let declared = ["org.example.sheet", "org.example.chain", "public.jpeg"]
        var generator = SeededGenerator(seed: 0x14_D20B)
        func pick<T>(_ values: [T]) -> T { values[Int(generator.next() % UInt64(values.count))] }
        let neverPackages = SystemPackageTypes.standard.neverPackages
        #expect(neverPackages.contains("public.jpeg") && neverPackages.contains("public.data"))
        #expect(!neverPackages.contains("com.apple.package") && !neverPackages.contains("com.apple.application-bundle"))
        var dropped = 0
        for round in 0..<300 {
            var applications: [ClaimResolver.Application] = []
            for index in 0..<1 + Int(generator.next() % 6) {
                let path = FilePath("/apps/App\(round)-\(index).app")
                var documentTypes: [DocumentType] = []
                for _ in 0..<Int(generator.next() % 3) {
                    documentTypes.append(DocumentType(name: "Doc", role: "Viewer", extensions: [pick(Self.extensions)],
                                                      contentTypes: (0..<Int(generator.next() % 3)).map { _ in pick(system + declared) },
                                                      isPackage: generator.next() % 4 == 0, iconPath: path.appending("Contents/Resources/doc.icns")))
                }
                var declarations: [TypeDeclaration] = []
                for _ in 0..<Int(generator.next() % 2) {
                    declarations.append(TypeDeclaration(identifier: pick(declared), conformsTo: [pick(system + declared)], extensions: [pick(Self.extensions)],
                                                        exported: generator.next() % 2 == 0))
                }
                let application = ClaimResolver.Application(path: path, documentTypes: documentTypes, typeDeclarations: declarations)
                if PackageClaimBook.relevant(application, neverPackages: neverPackages)?.documentTypes.count ?? 0 < documentTypes.count { dropped += 1 }
                applications.append(application)
            }
            let types = TypeDatabase(system: .standard, applications: applications.map { ($0.path, $0.typeDeclarations) })
            let packageTypes = types.typesConforming(to: TypeConformance.packageType)
            let whole = applications.flatMap { ClaimResolver.claims(of: $0, types: types, packageTypes: packageTypes) }.sorted(by: ClaimResolver.precedes)
            #expect(ClaimResolver.claims(of: applications) == whole, "round \(round)")
        }
        // Not vacuous: many document types could never claim.
        #expect(dropped > 100, "\(dropped)")
    }
}
