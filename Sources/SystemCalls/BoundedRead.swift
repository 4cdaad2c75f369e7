#if canImport(Glibc)
import Glibc
#endif

/// Why a file that should hold a few kilobytes of text was not read.
public enum BoundedReadError: Error, Equatable, CustomStringConvertible {
    case notRegularFile(path: String, type: FileType)
    case tooLarge(path: String, size: Int64, limit: Int)

    public var description: String {
        switch self {
        case let .notRegularFile(path, type): "\(path): is a \(type), not a regular file; not read"
        case let .tooLarge(path, size, limit):
            "\(path): \(size) bytes is more than the \(limit / 1024 / 1024) MiB limit for this file; not read"
        }
    }
}

extension Descriptor {
    /// Reads the whole of a regular file, refusing anything else (FIFOs, devices) and anything
    /// larger than `limit` bytes. Open the file with `Descriptor.probeRead` so a FIFO cannot block.
    public func readRegularFile(limit: Int) throws -> [UInt8] {
        try readRegularFile(limit: limit, status: try status())
    }

    /// The same, given the status the caller has just taken of this descriptor (one `fstat` less
    /// for each Info file and strings table an index reads).
    public func readRegularFile(limit: Int, status: FileStatus) throws -> [UInt8] {
        guard status.type == .regular else { throw BoundedReadError.notRegularFile(path: path.string, type: status.type) }
        guard status.size <= Int64(limit) else {
            throw BoundedReadError.tooLarge(path: path.string, size: status.size, limit: limit)
        }
        // Read one byte past the limit so a file that grew since fstat is still caught.
        let bytes = try read(at: 0, count: Int(status.size) + 1)
        if bytes.count > limit { throw BoundedReadError.tooLarge(path: path.string, size: Int64(bytes.count), limit: limit) }
        return bytes
    }
}

extension Descriptor {
    /// Reads until end of file, for files whose size stat does not tell (/proc), at most `limit` bytes.
    public func readToEnd(limit: Int) throws -> [UInt8] {
        var result: [UInt8] = []
        while result.count < limit {
            let chunk = try read(at: Int64(result.count), count: min(64 << 10, limit - result.count))
            if chunk.isEmpty { break }
            result += chunk
        }
        return result
    }
}
