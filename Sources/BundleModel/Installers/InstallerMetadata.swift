public import Codecs
public import SystemCalls

/// Rule 33's metadata of a flat installer package (`.pkg`, a xar archive): each component's
/// `PackageInfo` and a product archive's `Distribution`, as Apple's installer writes them.
/// `PackageInfo`: `<pkg-info identifier="..." version="..." install-location="/Applications">`
/// with `<bundle-version><bundle id="..." CFBundleShortVersionString="..." path="./X.app"/>`.
/// `Distribution`: `<installer-gui-script>` (or `installer-script`) with `<title>` and
/// `<product id="..." version="..."/>`.
public struct InstallerComponent: Sendable, Equatable {
    public var identifier: String?
    public var version: String?
    /// Where the payload's paths are installed (`/` when the file does not say).
    public var installLocation: String
    /// The bundles the component says it installs: identifier, version, path in the payload.
    public var bundles: [(identifier: String?, version: String?, path: String)]

    public init(identifier: String?, version: String?, installLocation: String = "/", bundles: [(identifier: String?, version: String?, path: String)] = []) {
        self.identifier = identifier
        self.version = version
        self.installLocation = installLocation
        self.bundles = bundles
    }

    public static func == (a: InstallerComponent, b: InstallerComponent) -> Bool {
        a.identifier == b.identifier && a.version == b.version && a.installLocation == b.installLocation
            && a.bundles.map(\.identifier) == b.bundles.map(\.identifier) && a.bundles.map(\.version) == b.bundles.map(\.version)
            && a.bundles.map(\.path) == b.bundles.map(\.path)
    }

    /// A `PackageInfo` file's component.
    public static func read(packageInfo bytes: [UInt8]) throws(XMLError) -> InstallerComponent {
        let root = try XMLElementReader.read(bytes)
        guard root.name == "pkg-info" else { throw XMLError("the root is <\(root.name)>, not <pkg-info>", at: 0) }
        let bundles = root.children(named: "bundle-version").flatMap { $0.children(named: "bundle") }.compactMap { bundle in
            bundle.attributes["path"].map { path in
                (identifier: nonEmpty(bundle.attributes["id"]),
                 version: nonEmpty(bundle.attributes["CFBundleShortVersionString"]) ?? nonEmpty(bundle.attributes["CFBundleVersion"]), path: path)
            }
        }
        return InstallerComponent(identifier: nonEmpty(root.attributes["identifier"]), version: nonEmpty(root.attributes["version"]),
                                  installLocation: nonEmpty(root.attributes["install-location"]) ?? "/", bundles: bundles)
    }

    /// Where a payload path (`./Foo.app`, `Foo.app`) is installed: joined with the install location.
    public func installPath(of payloadPath: String) -> String {
        var relative = Substring(payloadPath)
        while relative.hasPrefix("./") { relative = relative.dropFirst(2) }
        while relative.hasPrefix("/") { relative = relative.dropFirst() }
        if relative == "." { relative = "" }
        let location = installLocation.hasSuffix("/") ? String(installLocation.dropLast()) : installLocation
        return relative.isEmpty ? (location.isEmpty ? "/" : location) : location + "/" + relative
    }
}

/// A product archive's product: what its `Distribution` says.
public struct InstallerProduct: Sendable, Equatable {
    public var title: String?
    public var identifier: String?
    public var version: String?

    public init(title: String?, identifier: String?, version: String?) {
        self.title = title
        self.identifier = identifier
        self.version = version
    }

    public static func read(distribution bytes: [UInt8]) throws(XMLError) -> InstallerProduct {
        let root = try XMLElementReader.read(bytes)
        guard root.name == "installer-gui-script" || root.name == "installer-script" else {
            throw XMLError("the root is <\(root.name)>, not <installer-gui-script>", at: 0)
        }
        let product = root.child(named: "product")
        return InstallerProduct(title: nonEmpty(root.child(named: "title")?.text.trimmingSpaces), identifier: nonEmpty(product?.attributes["id"]),
                                version: nonEmpty(product?.attributes["version"]))
    }
}

private func nonEmpty(_ text: String?) -> String? {
    guard let text, !text.isEmpty else { return nil }
    return text
}

/// A flat installer package's metadata (rule 33): its product, when it is a product archive, and
/// its components, each under the member directory it is in (`Editor.pkg/` in a product archive,
/// the archive's top in a component package).
public struct InstallerPackage: Sendable, Equatable {
    public var product: InstallerProduct?
    public var components: [(directory: FilePath, component: InstallerComponent)]
    /// Metadata files that could not be read, as one-line messages.
    public var problems: [String]
    /// The same, by member (`Editor.pkg/PackageInfo`, `Distribution`): nothing is taken from them.
    public var metadataErrors: [FilePath: String] = [:]
    /// Payloads that could not be read whole, and why, by payload member (`Payload`, `Editor.pkg/Payload`).
    public var payloadErrors: [FilePath: String] = [:]

    public init(product: InstallerProduct? = nil, components: [(directory: FilePath, component: InstallerComponent)] = [], problems: [String] = []) {
        self.product = product
        self.components = components
        self.problems = problems
    }

    public static func == (a: InstallerPackage, b: InstallerPackage) -> Bool {
        a.product == b.product && a.problems == b.problems && a.metadataErrors == b.metadataErrors && a.payloadErrors == b.payloadErrors
            && a.components.map(\.directory) == b.components.map(\.directory)
            && a.components.map(\.component) == b.components.map(\.component)
    }

    /// The metadata members of a package, by name: `Distribution` at its top, `PackageInfo` at
    /// its top or one directory down.
    public static func isMetadata(_ member: FilePath) -> Bool {
        let components = member.components
        guard let name = components.last?.string else { return false }
        return (name == "Distribution" && components.count == 1) || (name == "PackageInfo" && components.count <= 2)
    }

    /// A component's payload: `Payload` at the package's top or one directory down, beside its `PackageInfo`.
    public static func isPayload(_ member: FilePath) -> Bool {
        let components = member.components
        return components.last?.string == "Payload" && components.count <= 2
    }

    /// The payload among `payloads` that `member` is inside (not the payload itself). A payload is
    /// at most two names deep (`isPayload`), so only the member's first two names are looked up:
    /// the work is the same for the ten-thousandth component as for the first.
    public static func payload(containing member: FilePath, among payloads: Set<FilePath>) -> FilePath? {
        let names = member.components
        var prefix = FilePath.here
        for name in names.prefix(max(0, min(2, names.count - 1))) {
            prefix = prefix.appending(name)
            if payloads.contains(prefix) { return prefix }
        }
        return nil
    }

    /// Says of each record found inside a payload (`payloads`: the payload members opened)
    /// which component installs it and where: the component's install location joined with the
    /// record's path in the payload. A payload without a `PackageInfo` beside it is installed at
    /// `/` by a component that says nothing; one whose `PackageInfo` could not be read gets that
    /// error and no place (nothing is guessed), and a `Distribution` that could not be read is
    /// an error on every record of the product.
    public func place(_ records: inout [BundleRecord], payloads: some Collection<FilePath>) {
        let opened = Set(payloads)
        var byDirectory: [FilePath: InstallerComponent] = [:]
        for (directory, component) in components where byDirectory[directory] == nil { byDirectory[directory] = component }
        let distribution = FilePath("Distribution")
        let productError = metadataErrors[distribution].map { "\(distribution) could not be read (\($0)): the product is unknown" }
        for index in records.indices {
            guard let member = records[index].member, let payload = Self.payload(containing: member, among: opened),
                  let relative = member.relative(to: payload) else { continue }
            let packageInfo = payload.parent.appending("PackageInfo")
            if let error = metadataErrors[packageInfo] {
                records[index].errors.append("\(packageInfo) could not be read (\(error)): its component and where it installs are unknown")
            } else {
                let component = byDirectory[payload.parent] ?? InstallerComponent(identifier: nil, version: nil)
                records[index].installation = BundleRecord.Installation(component: component.identifier,
                                                                        installsTo: FilePath(component.installPath(of: relative.string)))
            }
            if let productError { records[index].errors.append(productError) }
        }
    }

    /// From the metadata members' bytes, by member path.
    public init(members: [FilePath: [UInt8]]) {
        self.init()
        for path in members.keys.sorted() {
            guard let bytes = members[path] else { continue }
            do {
                if path.lastComponent.string == "Distribution" {
                    product = try InstallerProduct.read(distribution: bytes)
                } else {
                    components.append((path.parent, try InstallerComponent.read(packageInfo: bytes)))
                }
            } catch {
                problems.append("\(path): \(error)")
                metadataErrors[path] = "\(error)"
            }
        }
    }
}
