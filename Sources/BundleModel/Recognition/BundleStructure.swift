/// The directories that make up a bundle's own structure (`Contents`, GNUstep's `Resources`,
/// a framework's `Versions/*/Resources`). They hold the bundle's Info file, so by rule 2 alone each
/// would look like a flat bundle; they are parts of the enclosing bundle, never bundles themselves.
public struct BundleStructure: Sendable, Equatable {
    /// Relative paths, where a `*` component matches any name.
    public let patterns: [[String]]

    public init(patterns: [[String]]) { self.patterns = patterns }

    public init(infoFile: String?, resourcesDirectory: String?, lowercasedExtension: String?) {
        var patterns: [[String]] = []
        func addWithPrefixes(_ path: String?) {
            guard let path, !path.isEmpty else { return }
            let components = path.split(separator: "/").map(String.init)
            for length in 1...components.count where !patterns.contains(Array(components.prefix(length))) {
                patterns.append(Array(components.prefix(length)))
            }
        }
        if let infoFile, let slash = infoFile.lastIndex(of: "/") { addWithPrefixes(String(infoFile[..<slash])) }
        addWithPrefixes(resourcesDirectory)
        if lowercasedExtension == "framework" {
            for pattern in [["Versions"], ["Versions", "*"], ["Versions", "*", "Resources"]] where !patterns.contains(pattern) {
                patterns.append(pattern)
            }
        }
        self.patterns = patterns
    }

    public init(record: BundleRecord) {
        self.init(infoFile: record.infoFile, resourcesDirectory: record.resourcesDirectory, lowercasedExtension: record.lowercasedExtension)
    }

    public var isEmpty: Bool { patterns.isEmpty }

    /// Walking into a child: whether the child is structural, and the patterns below it.
    public func descending(into name: String) -> (isStructural: Bool, below: BundleStructure) {
        var structural = false
        var below: [[String]] = []
        for pattern in patterns where pattern[0] == "*" || pattern[0] == name {
            if pattern.count == 1 { structural = true } else { below.append(Array(pattern.dropFirst())) }
        }
        return (structural, BundleStructure(patterns: below))
    }
}
