import BundleModel
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

extension ViewFileSystem {
    /// Names in these namespaces are answered "not supported" at once, without touching the
    /// source: `ls -l` asks for SELinux labels and ACLs of every file, and coreutils remembers
    /// "not supported" per file system, so the question is asked once instead of per file.
    static func isUnsupportedNamespace(_ name: String) -> Bool { name.hasPrefix("security.") || name.hasPrefix("system.") }

    /// A package's attributes describe its bundle (SPEC.md).
    func packageAttributes(of id: UInt64) throws(ViewError) -> [(name: String, value: String)] {
        let path = try realPath(id)
        let entry = packages.entry(at: path)
        var attributes: [(String, String)] = []
        if let identifier = entry?.identifier { attributes.append(("user.bundle.identifier", identifier)) }
        attributes.append(("user.bundle.kind", (entry?.kind ?? .document).rawValue))
        if let version = entry?.version { attributes.append(("user.bundle.version", version)) }
        attributes.append(("user.bundle.real-name", path.lastComponent.string))
        attributes.append(("user.mime_type", "application/x-tar"))
        if let application = defaultApplication(ofPackage: path) { attributes.append((Self.defaultApplicationName, application)) }
        return attributes
    }

    static let defaultApplicationName = "user.bundle.default-application"

    /// What `bundlefs open-with` would put first for a real item the view presents the Finder's
    /// way (SPEC.md, "Launch Services"): a file by its extension, a package by its package
    /// extension, a folder as a folder; nothing inside a package (the Finder shows a package as
    /// one item), nothing in `.bundlefs` (raw contents, for code). Kept by question between two
    /// updates (`DefaultApplications`), so a directory of 10,000 `.txt` files costs one ranking.
    func defaultApplication(ofSource path: FilePath) -> String? {
        guard !isInsidePackage(path), let status = try? FileStatus.of(path) else { return nil }
        let ext = path.lastComponent.lowercasedExtension
        switch status.type {
        case .regular:
            return defaultApplications.identifier(for: .file(extension: ext))
        case .directory:
            // A package reached by its real name is still its package type (as `open-with` asks).
            if let ext, packages.entry(at: path)?.isPackage == true { return defaultApplications.identifier(for: .package(extension: ext)) }
            return defaultApplications.identifier(for: .folder)
        default:
            return nil
        }
    }

    /// A package presented as its tar: by its extension when it has one, else as a folder.
    func defaultApplication(ofPackage path: FilePath) -> String? {
        guard !isInsidePackage(path) else { return nil }
        guard let ext = path.lastComponent.lowercasedExtension else { return defaultApplications.identifier(for: .folder) }
        return defaultApplications.identifier(for: .package(extension: ext))
    }

    /// Whether a directory between the item and SOURCE (SOURCE itself is shown as a folder) is a
    /// package: its contents are reached only by real names.
    func isInsidePackage(_ path: FilePath) -> Bool {
        var current = path.parent
        while current != source.path && current.isWithin(source.path) {
            if packages.entry(at: current)?.isPackage == true { return true }
            current = current.parent
        }
        return false
    }

    /// An archive holding exactly one application at its top (an `.ipa`) describes it (SPEC.md,
    /// "Bundles inside archives"): an application not inside another bundle of the archive.
    func archiveAttributes(of path: FilePath) -> [(name: String, value: String)] {
        let archived = packages.archived(in: path)
        guard !archived.isEmpty else { return [] }
        let top = archived.filter { entry in
            entry.kind == .application && !archived.contains { $0.path != entry.path && $0.isBundle && entry.path.isWithin($0.path) }
        }
        guard top.count == 1, let application = top.first else { return [] }
        var attributes: [(String, String)] = []
        if let identifier = application.identifier { attributes.append(("user.bundle.identifier", identifier)) }
        attributes.append(("user.bundle.kind", application.kind.rawValue))
        if let version = application.version { attributes.append(("user.bundle.version", version)) }
        attributes.append(("user.bundle.display-name", DisplayNames.sanitized(application.displayName, realName: application.path.lastComponent.string)))
        if let member = application.path.relative(to: path) { attributes.append(("user.bundle.member", member.string)) }
        return attributes
    }

    /// GETXATTR: packages' own, real items' as they are (with their default application when
    /// presented), none on synthesized items.
    func extendedAttribute(_ name: String, of id: UInt64) throws(ViewError) -> [UInt8] {
        if Self.isUnsupportedNamespace(name) { throw ViewError(code: EOPNOTSUPP) }
        let node = try node(id)
        switch node.kind {
        case .package:
            guard let value = try packageAttributes(of: id).first(where: { $0.name == name })?.value else { throw ViewError(code: ENODATA) }
            return FileNameCoding.bytes(of: value)
        case .source, .raw:
            let path = try realPath(id)
            if name.hasPrefix("user.bundle."), let value = archiveAttributes(of: path).first(where: { $0.name == name })?.value {
                return FileNameCoding.bytes(of: value)
            }
            if node.kind == .source, name == Self.defaultApplicationName, let value = defaultApplication(ofSource: path) {
                return FileNameCoding.bytes(of: value)
            }
            return try ViewError.translating {
                guard let value = try ExtendedAttributes.value(name, atPath: path) else { throw ViewError(code: ENODATA) }
                return value
            }
        case .control where name == RequestCounts.attributeName:
            return Array(requests.summary.utf8)
        default:
            throw ViewError(code: ENODATA)
        }
    }

    /// LISTXATTR.
    func extendedAttributeNames(of id: UInt64) throws(ViewError) -> [String] {
        let node = try node(id)
        switch node.kind {
        case .package:
            return try packageAttributes(of: id).map(\.name)
        case .source, .raw:
            let path = try realPath(id)
            let own = try ViewError.translating { try ExtendedAttributes.names(atPath: path).filter { !Self.isUnsupportedNamespace($0) } }
            var ours = archiveAttributes(of: path).map(\.name)
            if node.kind == .source, defaultApplication(ofSource: path) != nil { ours.append(Self.defaultApplicationName) }
            return own + ours.filter { !own.contains($0) }
        default:
            return []
        }
    }
}
