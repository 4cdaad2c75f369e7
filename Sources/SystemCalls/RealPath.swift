#if canImport(Glibc)
import Glibc
#endif

extension FilePath {
    /// The canonical absolute path (symlinks, `.` and `..` resolved), as realpath(3) gives it.
    public func resolved() throws -> FilePath {
        try withCString { cPath in
            guard let result = realpath(cPath, nil) else { throw SystemError.last("realpath", path: string) }
            defer { free(result) }
            return FilePath(FileNameCoding.string(cString: result))
        }
    }
}
