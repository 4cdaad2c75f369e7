public import SystemCalls

/// A directory as the scanner holds it when deciding whether it is a bundle: open, listed once.
public struct DirectoryContext: Sendable {
    /// Absolute path.
    public var path: String
    /// Path relative to the scan root (`""` for the root itself).
    public var relativePath: String
    /// The open directory, when the caller has one; without it, attributes are read by path.
    public var descriptor: Descriptor?
    public var entries: [DirectoryEntry]
    /// Whether the parent directory has an AppleDouble `._<name>` beside this one.
    public var hasSidecar: Bool

    public init(path: String, relativePath: String, descriptor: Descriptor?, entries: [DirectoryEntry], hasSidecar: Bool) {
        self.path = path
        self.relativePath = relativePath
        self.descriptor = descriptor
        self.entries = entries
        self.hasSidecar = hasSidecar
    }

    public var name: String { Paths.lastComponent(path) }

    /// Opens and lists a directory for inspection outside a scan (`bundlefs show`).
    public static func open(_ path: String, in root: ScanRoot) throws -> DirectoryContext {
        guard let relative = root.relative(path) else {
            throw SystemError(errno: EXDEV_, operation: "open", path: path)
        }
        let descriptor = try Descriptor.open(path, flags: Descriptor.directoryNoFollow)
        let entries = try descriptor.listDirectory()
        let parentPath = Paths.parent(path)
        let sidecar = "._" + Paths.lastComponent(path)
        var hasSidecar = false
        if relative != "", let parent = try? Descriptor.open(parentPath, flags: Descriptor.directoryNoFollow) {
            hasSidecar = (try? parent.status(of: sidecar)) != nil
        }
        return DirectoryContext(path: path, relativePath: relative, descriptor: descriptor, entries: entries, hasSidecar: hasSidecar)
    }
}
