import Foundation

/// Tools that check bundlefs's readers from outside: the Swift toolchain's `llvm-objdump` and
/// `clang`, binutils' `readelf`. Found on PATH, else beside the running `swift`'s toolchain.
public enum Toolchain {
    public static func tool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { Paths.join(String($0), name) } + ["/opt/swift/usr/bin/\(name)", "/usr/bin/\(name)"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a tool and returns its standard output; fails the test when it does not succeed.
    public static func output(_ name: String, _ arguments: [String]) throws -> String {
        guard let executable = tool(name) else { throw ToolMissing(name: name) }
        let result = try Subprocess.run(executable, arguments)
        guard result.status == 0 else { throw ToolMissing(name: "\(name) \(arguments.joined(separator: " ")) failed: \(result.standardError)") }
        return result.standardOutput
    }

    public struct ToolMissing: Error, CustomStringConvertible {
        public let name: String
        public init(name: String) { self.name = name }
        public var description: String { "\(name) is not available" }
    }
}
