#if canImport(Glibc)
import Glibc
#endif

extension Paths {
    /// The canonical absolute path (symlinks, `.` and `..` resolved), as realpath(3) gives it.
    public static func resolved(_ path: String) throws -> String {
        try FileNameCoding.withCString(path) { cPath in
            guard let result = realpath(cPath, nil) else { throw SystemError.last("realpath", path: path) }
            defer { free(result) }
            return FileNameCoding.string(cString: result)
        }
    }
}
