#if canImport(Glibc)
import Glibc
#endif

/// Environment variables read with getenv(3): Foundation's `ProcessInfo` copies the whole
/// environment into a dictionary first, which a short-lived command (`bundlefs query`) notices.
/// Values as `FileNameCoding` keeps bytes.
public enum Environment {
    /// The variables of these names that are set.
    public static func variables(named names: [String]) -> [String: String] {
        var variables: [String: String] = [:]
        for name in names {
            if let value = getenv(name) { variables[name] = FileNameCoding.string(cString: value) }
        }
        return variables
    }
}
