#if canImport(Glibc)
public import Glibc
#endif
public import Codecs
public import SystemCalls

/// Writes trees of files for tests, the sample tree and benchmarks: directories, files in any
/// encoding, symlinks, FIFOs, extended attributes and AppleDouble sidecars. Paths are relative to
/// `root`; parent directories are created as needed. Failures stop the program: a fixture that
/// cannot be written makes every later assertion meaningless.
public struct TreeWriter: Sendable {
    public let root: String

    public init(root: String) {
        self.root = root
        makeDirectories(root)
    }

    public func path(_ relative: String) -> String { FilePath(root).appending(FilePath(relative)).string }

    @discardableResult
    public func directory(_ relative: String) -> String {
        makeDirectories(path(relative))
        return path(relative)
    }

    public func file(_ relative: String, _ bytes: [UInt8], mode: mode_t = 0o644) {
        let full = path(relative)
        let create = { try! FileNameCoding.withCString(full) { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode) } }
        var fd = create()
        if fd < 0 && errno == ENOENT {
            makeDirectories(FilePath(full).parent.string)
            fd = create()
        }
        precondition(fd >= 0, "cannot create \(full): \(String(cString: strerror(errno)))")
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            precondition(n > 0, "cannot write \(full)")
            written += n
        }
        close(fd)
        if mode != 0o644 { _ = try? FileNameCoding.withCString(full) { chmod($0, mode) } }
    }

    public func text(_ relative: String, _ text: String, mode: mode_t = 0o644) {
        file(relative, Array(text.utf8), mode: mode)
    }

    public func symlink(_ relative: String, to target: String) {
        let full = path(relative)
        makeDirectories(FilePath(full).parent.string)
        let result = try! FileNameCoding.withCString(target) { cTarget in
            try FileNameCoding.withCString(full) { Glibc.symlink(cTarget, $0) }
        }
        precondition(result == 0, "cannot symlink \(full): \(String(cString: strerror(errno)))")
    }

    public func fifo(_ relative: String) {
        let full = path(relative)
        makeDirectories(FilePath(full).parent.string)
        precondition(try! FileNameCoding.withCString(full) { mkfifo($0, 0o644) } == 0, "cannot mkfifo \(full)")
    }

    public func setAttribute(_ relative: String, name: String, value: [UInt8]) {
        do { try ExtendedAttributes.set(name, to: value, atPath: FilePath(path(relative))) } catch {
            preconditionFailure("cannot set \(name): \(error)")
        }
    }

    public func remove(_ relative: String) {
        removeTree(path(relative))
    }

    public func rename(_ from: String, _ to: String) {
        let result = try! FileNameCoding.withCString(path(from)) { cFrom in
            try FileNameCoding.withCString(path(to)) { Glibc.rename(cFrom, $0) }
        }
        precondition(result == 0, "cannot rename \(from) to \(to): \(String(cString: strerror(errno)))")
    }

    // MARK: Property lists

    public func plist(_ relative: String, _ value: PlistValue, format: PlistFormat = .xml) {
        switch format {
        case .xml: file(relative, PropertyListWriter.xml(value))
        case .binary: file(relative, PropertyListWriter.binary(value))
        case .openStep: file(relative, PropertyListWriter.openStep(value))
        }
    }

    /// A `.strings` file in the given form.
    public func strings(_ relative: String, _ entries: KeyValuePairs<String, String>, as encoding: StringsEncoding = .utf8) {
        file(relative, StringsEncoder.encode(Array(entries).map { ($0.key, $0.value) }, as: encoding))
    }

    // MARK: Helpers

    func makeDirectories(_ full: String) {
        var current = ""
        for component in full.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + component
            let result = try! FileNameCoding.withCString(current) { mkdir($0, 0o755) }
            precondition(result == 0 || errno == EEXIST, "cannot create \(current): \(String(cString: strerror(errno)))")
        }
    }
}

/// Removes a tree, as `rm -rf` does (restoring permissions that would stop it).
public func removeTree(_ path: String) { removeTree(FilePath(path)) }

public func removeTree(_ path: FilePath) {
    guard let status = try? FileStatus.of(path) else { return }
    if status.type == .directory {
        _ = try? path.withCString { chmod($0, 0o755) }
        if let directory = try? Descriptor.open(path, flags: Descriptor.directoryNoFollow),
           let entries = try? directory.listDirectory() {
            for entry in entries { removeTree(path.appending(entry.name)) }
        }
        _ = try? path.withCString { rmdir($0) }
    } else {
        _ = try? path.withCString { unlink($0) }
    }
}
