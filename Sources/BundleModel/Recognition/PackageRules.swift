public import SystemCalls

/// Why a directory is a package (BUNDLES.md rule 1); every reason that holds is recorded.
public struct PackageReasons: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Its extension is in the built-in (configurable) set.
    public static let `extension` = PackageReasons(rawValue: 1)
    /// A catalogued application claims its extension as a package type.
    public static let claimed = PackageReasons(rawValue: 2)
    /// Its Finder info has the package bit.
    public static let finderBit = PackageReasons(rawValue: 4)
    /// Its extension belongs to a directory type the Mac itself declares a package (`SystemPackageTypes`).
    public static let systemType = PackageReasons(rawValue: 8)

    /// The names used in JSON and in the catalogue, in a fixed order.
    public var names: [String] {
        var names: [String] = []
        if contains(.extension) { names.append("extension") }
        if contains(.systemType) { names.append("system-type") }
        if contains(.claimed) { names.append("claimed") }
        if contains(.finderBit) { names.append("finder-bit") }
        return names
    }

    public init(names: [String]) {
        var reasons: PackageReasons = []
        for name in names {
            switch name {
            case "extension": reasons.insert(.extension)
            case "system-type": reasons.insert(.systemType)
            case "claimed": reasons.insert(.claimed)
            case "finder-bit": reasons.insert(.finderBit)
            default: break
            }
        }
        self = reasons
    }
}

/// Which extensions make a directory a package, and which extensions name bundles.
public struct PackageRules: Sendable, Equatable {
    /// Rule 1's built-in set. `framework` is deliberately absent: frameworks stay folders.
    public static let builtInPackageExtensions: Set<String> = [
        "app", "appex", "xpc", "plugin", "bundle", "kext", "prefpane", "qlgenerator", "mdimporter", "saver", "scptd", "rtfd",
    ]

    /// Lower-cased extensions that make a directory a package.
    public var packageExtensions: Set<String>
    /// Lower-cased extensions of the system's package types.
    public var systemTypeExtensions: Set<String>

    public init(packageExtensions: Set<String> = PackageRules.builtInPackageExtensions,
                systemTypeExtensions: Set<String> = SystemPackageTypes.standard.packageExtensions) {
        self.packageExtensions = Set(packageExtensions.map { $0.lowercased() })
        self.systemTypeExtensions = Set(systemTypeExtensions.map { $0.lowercased() })
    }

    public static let standard = PackageRules()

    public func isPackageExtension(_ lowercasedExtension: String?) -> Bool {
        guard let lowercasedExtension else { return false }
        return packageExtensions.contains(lowercasedExtension)
    }

    public func isSystemTypeExtension(_ lowercasedExtension: String?) -> Bool {
        guard let lowercasedExtension else { return false }
        return systemTypeExtensions.contains(lowercasedExtension)
    }
}

/// Name arithmetic for extensions. Asked of every name a walk lists, so each works on the name's
/// UTF-8 in place (`ExactBytes`): the generic index walk of `String.UTF8View` cost several times as
/// much (and a generic version, unspecialised across modules, made a one-thread scan 1.8 times slower).
public enum FileNames {
    /// The lower-cased extension of a name: `Chess.APP` → `app`; nil for `Makefile`, `.hidden`, `a.`.
    public static func lowercasedExtension(_ name: String) -> String? {
        guard let ext = pathExtension(name) else { return nil }
        // Most extensions are lower-case ASCII already: no second string.
        let plain = ExactBytes.withBytes(ext) { bytes in !bytes.contains { $0 >= 0x80 || ($0 >= 0x41 && $0 <= 0x5A) } }
        return plain ? ext : ext.lowercased()
    }

    /// The extension as written, or nil. A leading dot does not start an extension.
    public static func pathExtension(_ name: String) -> String? {
        guard let dot = extensionDot(name) else { return nil }
        return ExactBytes.slice(name, dot + 1..<name.utf8.count)
    }

    /// Whether two names are equal ignoring ASCII case (bundle markers are ASCII), without allocating.
    public static func equalsIgnoringASCIICase(_ name: String, _ lowercasedASCII: StaticString) -> Bool {
        let count = lowercasedASCII.utf8CodeUnitCount
        guard name.utf8.count == count else { return false }
        let pointer = lowercasedASCII.utf8Start
        return ExactBytes.withBytes(name) { bytes in
            for index in 0..<count where folded(bytes[index]) != pointer[index] { return false }
            return true
        }
    }

    /// Whether a name ends in `.lproj`, in any case.
    public static func isLprojName(_ name: String) -> Bool { hasSuffixIgnoringASCIICase(name, lprojSuffix) }

    private static let lprojSuffix = Array(".lproj".utf8)

    /// Whether a name is longer than `lowercasedSuffix` and ends in it, ASCII case folded, without
    /// allocating.
    public static func hasSuffixIgnoringASCIICase(_ name: String, _ lowercasedSuffix: [UInt8]) -> Bool {
        ExactBytes.withBytes(name) { bytes in
            guard bytes.count > lowercasedSuffix.count else { return false }
            let start = bytes.count - lowercasedSuffix.count
            for (offset, expected) in lowercasedSuffix.enumerated() where folded(bytes[start + offset]) != expected { return false }
            return true
        }
    }

    /// The name without its extension: `Chess.mov.app` → `Chess.mov`.
    public static func stem(_ name: String) -> String {
        guard let dot = extensionDot(name) else { return name }
        return ExactBytes.slice(name, 0..<dot)
    }

    /// ASCII case folded.
    @inlinable
    public static func folded(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }

    /// The offset of the dot that starts the extension: the last dot, when it is neither the first
    /// byte nor the last.
    private static func extensionDot(_ name: String) -> Int? {
        ExactBytes.lastOffset(of: UInt8(ascii: "."), in: name).flatMap { $0 == 0 || $0 + 1 == name.utf8.count ? nil : $0 }
    }
}

extension FileName {
    /// The lower-cased extension: `Chess.APP` → `app`; nil for `Makefile`, `.hidden`, `a.`.
    public var lowercasedExtension: String? { FileNames.lowercasedExtension(string) }
    /// The name without its extension: `Chess.mov.app` → `Chess.mov`.
    public var stem: FileName { FileName(FileNames.stem(string)) }
    /// Whether the name ends in `.lproj`, in any case.
    public var isLproj: Bool { FileNames.isLprojName(string) }
    /// Whether two names are equal ignoring ASCII case (bundle markers are ASCII).
    public func equalsIgnoringASCIICase(_ lowercasedASCII: StaticString) -> Bool {
        FileNames.equalsIgnoringASCIICase(string, lowercasedASCII)
    }
}
