import Fixtures
import Foundation
import SystemCalls

/// Flat installer packages (BUNDLES.md rule 33) built as Apple's tools lay them out, from trees our
/// code writes: each component's payload a cpio archive written by `cpio -o` (odc, as `pkgbuild`
/// writes it) and compressed by gzip, bzip2 or xz, its `PackageInfo` beside it; a product
/// archive's `Distribution` at the top; the whole a xar written by `bsdtar --format xar`.
public struct InstallerPackageBuilder {
    public enum Compression: String, Sendable {
        case gzip, bzip2, xz, none
        /// Apple's own: a `pbzx` header then xz chunks. Only the header is real: bundlefs refuses it there.
        case pbzx
    }

    public struct Component {
        public var identifier: String
        public var version: String
        public var installLocation: String
        /// The directory of the payload's files: its contents become the payload.
        public var payload: String
        public var compression: Compression
        /// The component's directory in a product archive (`Editor.pkg`); nil for a component package.
        public var directory: String?
        /// What its `PackageInfo` says it installs: identifier and path in the payload.
        public var bundles: [(id: String, path: String)]
        /// The `PackageInfo`'s text when it is not what `pkgbuild` writes (a damaged one).
        public var packageInfoText: String?

        public init(identifier: String, version: String, installLocation: String, payload: String, compression: Compression = .gzip,
                    directory: String? = nil, bundles: [(id: String, path: String)] = [], packageInfoText: String? = nil) {
            self.identifier = identifier
            self.version = version
            self.installLocation = installLocation
            self.payload = payload
            self.compression = compression
            self.directory = directory
            self.bundles = bundles
            self.packageInfoText = packageInfoText
        }
    }

    /// `<pkg-info>` as `pkgbuild` writes it.
    public static func packageInfo(_ component: Component) -> String {
        let bundles = component.bundles.map { "<bundle id=\"\($0.id)\" CFBundleShortVersionString=\"\(component.version)\" path=\"\($0.path)\"/>" }
        return """
            <?xml version="1.0" encoding="utf-8"?>
            <pkg-info overwrite-permissions="true" relocatable="false" identifier="\(component.identifier)" postinstall-action="none" \
            version="\(component.version)" format-version="2" generator-version="InstallCmds-807" install-location="\(component.installLocation)" auth="root">
                <payload numberOfFiles="3" installKBytes="12"/>
                <bundle-version>\(bundles.joined())</bundle-version>
            </pkg-info>
            """
    }

    /// Builds the package at `archive`, staging its members in `staging` (emptied first). With a
    /// `product` (title, identifier, version), a product archive with a `Distribution`.
    /// `distribution` replaces the `Distribution` `productbuild` would write (a damaged one).
    public static func build(_ archive: String, components: [Component], product: (title: String, id: String, version: String)? = nil,
                             distribution: String? = nil, staging: String) throws {
        removeTree(staging)
        let members = TreeWriter(root: staging)
        members.directory(".")
        if let product {
            let references = components.map { "<pkg-ref id=\"\($0.identifier)\" version=\"\($0.version)\">#\($0.directory ?? "")</pkg-ref>" }
            members.text("Distribution", distribution ?? """
                <?xml version="1.0" encoding="utf-8"?>
                <installer-gui-script minSpecVersion="2"><title>\(product.title)</title>\(references.joined())
                <product id="\(product.id)" version="\(product.version)"/></installer-gui-script>
                """)
        }
        for component in components {
            let directory = component.directory.map { $0 + "/" } ?? ""
            members.text(directory + "PackageInfo", component.packageInfoText ?? packageInfo(component))
            members.text(directory + "Bom", "")
            try writePayload(from: component.payload, to: members.path(directory + "Payload"), compression: component.compression)
        }
        let made = try Subprocess.run("/usr/bin/bsdtar", ["-cf", archive, "--format", "xar", "-C", staging, "."])
        guard made.status == 0 else { throw Failure("bsdtar --format xar: \(made)") }
    }

    /// A product archive of `count` components (`Part0.pkg/` ...), each installing the tree at
    /// `payload` to its own `/Applications/Part<i>`: the payload is written once (gzip'd cpio)
    /// and copied into each component, so ten thousand components cost seconds to write.
    public static func buildWide(_ archive: String, components count: Int, payload: String, staging: String) throws {
        removeTree(staging)
        let members = TreeWriter(root: staging)
        members.directory(".")
        let written = Paths.join(staging, "Payload.cpio.gz")
        try writePayload(from: payload, to: written, compression: .gzip)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: written))
        try FileManager.default.removeItem(atPath: written)
        let references = (0..<count).map { "<pkg-ref id=\"org.example.part\($0).pkg\" version=\"1.0\">#Part\($0).pkg</pkg-ref>" }
        members.text("Distribution", """
            <?xml version="1.0" encoding="utf-8"?>
            <installer-gui-script minSpecVersion="2"><title>Parts</title>\(references.joined())
            <product id="org.example.parts" version="1.0"/></installer-gui-script>
            """)
        for index in 0..<count {
            let component = Component(identifier: "org.example.part\(index).pkg", version: "1.0", installLocation: "/Applications/Part\(index)",
                                      payload: payload, directory: "Part\(index).pkg")
            members.text("Part\(index).pkg/PackageInfo", packageInfo(component))
            members.text("Part\(index).pkg/Bom", "")
            try bytes.write(to: URL(fileURLWithPath: members.path("Part\(index).pkg/Payload")))
        }
        let made = try Subprocess.run("/usr/bin/bsdtar", ["-cf", archive, "--format", "xar", "-C", staging, "."], timeout: 600)
        guard made.status == 0 else { throw Failure("bsdtar --format xar: \(made)") }
    }

    /// `find . | cpio -o` in `root`, compressed, at `output`.
    public static func writePayload(from root: String, to output: String, compression: Compression) throws {
        if compression == .pbzx {
            // The magic, a chunk size, then what would be xz chunks.
            try Data(Array("pbzx".utf8) + [0, 0, 0, 0, 0, 0x10, 0, 0] + Array(repeating: 0x5A, count: 64)).write(to: URL(fileURLWithPath: output))
            return
        }
        let compressor = compression == .none ? "cat" : "\(compression.rawValue) -c"
        let script = "cd \"$1\" && find . | LC_ALL=C sort | cpio -o --format odc --quiet | \(compressor) > \"$2\""
        let made = try Subprocess.run("/bin/sh", ["-c", script, "sh", root, output])
        guard made.status == 0 else { throw Failure("cpio -o: \(made)") }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
