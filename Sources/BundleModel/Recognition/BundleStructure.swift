public import SystemCalls

/// The directories that make up a bundle's own structure (`Contents`, GNUstep's `Resources`,
/// a framework's `Versions/*/Resources`). They hold the bundle's Info file, so by rule 2 alone each
/// would look like a flat bundle; they are parts of the enclosing bundle, never bundles themselves.
public struct BundleStructure: Sendable, Hashable {
    /// Relative paths, where a `*` component matches any name.
    public let patterns: [[FileName]]
    /// Directories (relative to the bundle) whose files changing does not change the bundle's
    /// record until its own files say so: a Time Machine backup's `bands/`, whose files a running
    /// backup writes all the time (rule 34). A watcher does not read the bundle again for them.
    public var inert: [[FileName]] = []
    /// When set, the only files in the bundle's own directory its record is read from: others
    /// changing (a running backup's `lock` and `token`) do not change it.
    public var significantFiles: [FileName]?

    public init(patterns: [[FileName]]) { self.patterns = patterns }

    public init(infoFile: FilePath?, resourcesDirectory: FilePath?, lowercasedExtension: String?, kind: BundleKind? = nil) {
        var patterns: [[FileName]] = []
        func addWithPrefixes(_ path: FilePath?) {
            guard let components = path?.components, !components.isEmpty else { return }
            for length in 1...components.count where !patterns.contains(Array(components.prefix(length))) {
                patterns.append(Array(components.prefix(length)))
            }
        }
        addWithPrefixes(infoFile?.parent)
        addWithPrefixes(resourcesDirectory)
        if lowercasedExtension == "framework" {
            for pattern: [FileName] in [["Versions"], ["Versions", "*"], ["Versions", "*", "Resources"]] where !patterns.contains(pattern) {
                patterns.append(pattern)
            }
        }
        self.patterns = patterns
        if kind == .backup {
            inert = [[TimeMachineBackup.bandsDirectory]]
            significantFiles = TimeMachineBackup.readFiles
        }
    }

    public init(record: BundleRecord) {
        self.init(infoFile: record.infoFile, resourcesDirectory: record.resourcesDirectory, lowercasedExtension: record.lowercasedExtension,
                  kind: record.kind)
    }

    public var isEmpty: Bool { patterns.isEmpty }

    /// Walking into a child: whether the child is structural, and the patterns below it.
    public func descending(into name: FileName) -> (isStructural: Bool, below: BundleStructure) {
        var structural = false
        var below: [[FileName]] = []
        for pattern in patterns where pattern[0] == "*" || pattern[0] == name {
            if pattern.count == 1 { structural = true } else { below.append(Array(pattern.dropFirst())) }
        }
        return (structural, BundleStructure(patterns: below))
    }
}
