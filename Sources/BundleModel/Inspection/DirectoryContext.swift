public import SystemCalls

/// A directory as the scanner holds it when deciding whether it is a bundle: open, listed once.
public struct DirectoryContext: Sendable {
    /// Absolute path.
    public var path: FilePath
    /// Path relative to the scan root (empty for the root itself).
    public var relativePath: FilePath
    /// The open directory, when the caller has one; without it, attributes are read by path.
    public var descriptor: Descriptor?
    public var entries: [DirectoryEntry]
    /// Whether the parent directory has an AppleDouble `._<name>` beside this one.
    public var hasSidecar: Bool

    public init(path: FilePath, relativePath: FilePath, descriptor: Descriptor?, entries: [DirectoryEntry], hasSidecar: Bool) {
        self.path = path
        self.relativePath = relativePath
        self.descriptor = descriptor
        self.entries = entries
        self.hasSidecar = hasSidecar
    }

    public var name: FileName { path.lastComponent }

    /// Opens and lists a directory for inspection outside a scan (`bundlefs show`).
    public static func open(_ path: FilePath, in root: ScanRoot) throws -> DirectoryContext {
        guard let relative = root.relative(path) else {
            throw SystemError(errno: EXDEV_, operation: "open", path: path.string)
        }
        let descriptor = try Descriptor.open(path, flags: Descriptor.directoryNoFollow)
        let entries = try descriptor.listDirectory()
        var hasSidecar = false
        if !relative.isEmpty, let parent = try? Descriptor.open(path.parent, flags: Descriptor.directoryNoFollow) {
            hasSidecar = (try? parent.status(of: path.lastComponent.prefixed("._"))) != nil
        }
        return DirectoryContext(path: path, relativePath: relative, descriptor: descriptor, entries: entries, hasSidecar: hasSidecar)
    }
}
