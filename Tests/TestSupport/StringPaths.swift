public import BundleModel
public import Catalogue
public import SystemCalls

/// Tests name files with strings; these adapters give them the byte-exact types the code uses.
public enum Paths {
    public static func join(_ base: String, _ relative: String) -> String { FilePath(base).appending(FilePath(relative)).string }
    public static func parent(_ path: String) -> String { FilePath(path).parent.string }
    public static func lastComponent(_ path: String) -> String { FilePath(path).lastComponent.string }
    public static func absolute(_ path: String, base: String) -> String { FilePath(path).absolute(base: FilePath(base)).string }
}

extension FileStatus {
    public static func of(_ path: String, followSymlinks: Bool = false) throws -> FileStatus {
        try of(FilePath(path), followSymlinks: followSymlinks)
    }
}

extension Descriptor {
    public static func open(_ path: String, flags: Int32) throws -> Descriptor { try open(FilePath(path), flags: flags) }
}

extension ExtendedAttributes {
    public static func names(atPath path: String) throws -> [String] { try names(atPath: FilePath(path)) }
    public static func value(_ name: String, atPath path: String) throws -> [UInt8]? { try value(name, atPath: FilePath(path)) }
}

extension Catalogue {
    public convenience init(path: String, mode: Mode) throws { try self.init(path: FilePath(path), mode: mode) }
    public func bundle(atPath path: String) throws -> CataloguedBundle? { try bundle(atPath: FilePath(path)) }
}

extension ScanRoot {
    public init(path: String) throws { try self.init(path: FilePath(path)) }
    public func readRegularFile(_ relative: String, limit: Int) throws -> (bytes: [UInt8], status: FileStatus) {
        try readRegularFile(FilePath(relative), limit: limit)
    }
}

extension DirectoryContext {
    public static func open(_ path: String, in root: ScanRoot) throws -> DirectoryContext { try open(FilePath(path), in: root) }
}

/// A path compared with a string naming it (byte for byte), for expectations.
public func == (path: FilePath?, string: String?) -> Bool { path == string.map { FilePath($0) } }
