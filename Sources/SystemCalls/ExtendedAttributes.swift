#if canImport(Glibc)
import Glibc
#endif
import CSystemShims

/// Extended attributes, read without following symlinks. Values are bounded: a value larger than
/// the limit is reported as an error, never allocated.
public enum ExtendedAttributes {
    public static let defaultLimit = 64 * 1024

    /// The names of the attributes of an open file.
    public static func names(of descriptor: Descriptor) throws -> [String] {
        try readNames(path: descriptor.path) { buffer, size in flistxattr(descriptor.rawValue, buffer, size) }
    }

    /// The names of the attributes of a path (the link itself when it is a symlink).
    public static func names(atPath path: FilePath) throws -> [String] {
        try path.withCString { cPath in
            try readNames(path: path) { buffer, size in llistxattr(cPath, buffer, size) }
        }
    }

    /// The value of one attribute of an open file; nil when it has none of that name.
    public static func value(_ name: String, of descriptor: Descriptor, limit: Int = defaultLimit) throws -> [UInt8]? {
        try name.withCString { cName in
            try readValue(path: descriptor.path, limit: limit) { buffer, size in
                fgetxattr(descriptor.rawValue, cName, buffer, size)
            }
        }
    }

    /// The value of one attribute of a path (not following a final symlink); nil when absent.
    public static func value(_ name: String, atPath path: FilePath, limit: Int = defaultLimit) throws -> [UInt8]? {
        try path.withCString { cPath in
            try name.withCString { cName in
                try readValue(path: path, limit: limit) { buffer, size in lgetxattr(cPath, cName, buffer, size) }
            }
        }
    }

    /// Sets an attribute on a path (the link itself when it is a symlink).
    public static func set(_ name: String, to value: [UInt8], atPath path: FilePath) throws {
        let result = try path.withCString { cPath in
            value.withUnsafeBytes { lsetxattr(cPath, name, $0.baseAddress, $0.count, 0) }
        }
        if result != 0 { throw SystemError.last("setxattr", path: path.string) }
    }

    /// Removes an attribute from a path (the link itself when it is a symlink).
    public static func remove(_ name: String, atPath path: FilePath) throws {
        let result = try path.withCString { cPath in lremovexattr(cPath, name) }
        if result != 0 { throw SystemError.last("removexattr", path: path.string) }
    }

    private static func readNames(path: FilePath, _ call: (UnsafeMutablePointer<CChar>?, Int) -> Int) throws -> [String] {
        // Most files have no attributes: ask for the size first, with no buffer at all.
        let size = call(nil, 0)
        if size == 0 { return [] }
        if size < 0 {
            let error = errno
            if error == ENOTSUP || error == ENODATA { return [] }
            throw SystemError(errno: error, operation: "listxattr", path: path.string)
        }
        var capacity = max(size, 256)
        while true {
            var buffer = [CChar](repeating: 0, count: capacity)
            let length = buffer.withUnsafeMutableBufferPointer { call($0.baseAddress, capacity) }
            if length >= 0 {
                return buffer[0..<length].split(separator: 0).map { chunk in
                    FileNameCoding.string(from: chunk.map { UInt8(bitPattern: $0) })
                }
            }
            let error = errno
            if error == ERANGE && capacity < 1 << 20 { capacity *= 8; continue }
            if error == ENOTSUP || error == ENODATA { return [] }
            throw SystemError(errno: error, operation: "listxattr", path: path.string)
        }
    }

    private static func readValue(path: FilePath, limit: Int, _ call: (UnsafeMutableRawPointer?, Int) -> Int) throws -> [UInt8]? {
        var capacity = min(limit, 4096)
        while true {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let length = buffer.withUnsafeMutableBytes { call($0.baseAddress, capacity) }
            if length >= 0 { return Array(buffer[0..<length]) }
            let error = errno
            if error == ENODATA || error == ENOTSUP { return nil }
            if error == ERANGE && capacity < limit { capacity = min(limit, capacity * 16); continue }
            throw SystemError(errno: error, operation: "getxattr", path: path.string)
        }
    }
}
