public import Codecs

/// The Info dictionary keys bundlefs exposes (BUNDLES.md rule 8), read from the raw dictionary
/// without ever trusting their types: a key of the wrong type reads as absent and is reported by
/// `problems`.
public struct InfoDictionary: Sendable, Equatable {
    public let raw: [String: PlistValue]

    public init(_ raw: [String: PlistValue]) { self.raw = raw }

    public func string(_ key: String) -> String? { raw[key]?.string }

    public var identifier: String? { string("CFBundleIdentifier") }
    public var bundleName: String? { string("CFBundleName") }
    public var displayName: String? { string("CFBundleDisplayName") }
    public var version: String? { string("CFBundleVersion") }
    public var shortVersion: String? { string("CFBundleShortVersionString") }
    public var packageType: String? { string("CFBundlePackageType") }
    public var signature: String? { string("CFBundleSignature") }
    /// CFBundleExecutable, or GNUstep's NSExecutable (rule 8): also when CFBundleExecutable is
    /// empty or an unexpanded build variable (`${EXECUTABLE_NAME}`), as GNUstep falls back.
    public var executable: String? {
        let declared = string("CFBundleExecutable")
        guard let declared, Self.isUsableExecutableName(declared) else { return string("NSExecutable") ?? declared }
        return declared
    }

    static func isUsableExecutableName(_ name: String) -> Bool { !name.isEmpty && !Self.hasUnexpandedVariable(name) }

    /// `$(` or `${` anywhere, looked for byte by byte: `String.contains` of a string goes through
    /// the string-processing library's generic search, 2% of a first index's processor time
    /// (every bundle's executable name is judged by the walk and again by the catalogue's row).
    static func hasUnexpandedVariable(_ text: String) -> Bool {
        var afterDollar = false
        for byte in text.utf8 {
            if afterDollar && (byte == UInt8(ascii: "(") || byte == UInt8(ascii: "{")) { return true }
            afterDollar = byte == UInt8(ascii: "$")
        }
        return false
    }
    public var developmentRegion: String? { string("CFBundleDevelopmentRegion") }
    public var declaredLocalizations: [String] { raw["CFBundleLocalizations"]?.stringList ?? [] }
    public var hasLocalizedDisplayName: Bool { raw["LSHasLocalizedDisplayName"]?.isTruthy ?? false }
    public var copyright: String? { string("NSHumanReadableCopyright") }

    /// The name Info.plist gives the bundle for rule 16: CFBundleDisplayName, else CFBundleName.
    public var nameForDisplay: String? { displayName ?? bundleName }

    static let stringKeys = [
        "CFBundleIdentifier", "CFBundleName", "CFBundleDisplayName", "CFBundleVersion",
        "CFBundleShortVersionString", "CFBundlePackageType", "CFBundleSignature", "CFBundleExecutable",
        "NSExecutable", "CFBundleDevelopmentRegion", "NSHumanReadableCopyright",
    ]

    /// What is invalid about the exposed keys, as errors (the bundle is not sound) and warnings.
    public func problems() -> (errors: [String], warnings: [String]) {
        var errors: [String] = []
        var warnings: [String] = []
        for key in Self.stringKeys {
            if let value = raw[key], value.string == nil {
                warnings.append("\(key) is a \(value.typeName), not a string; ignored")
            }
        }
        if let identifier {
            if let reason = Self.identifierProblem(identifier) { errors.append(reason) }
        }
        for key in ["CFBundleDocumentTypes", "UTExportedTypeDeclarations", "UTImportedTypeDeclarations"] {
            if let value = raw[key], value.array == nil {
                warnings.append("\(key) is a \(value.typeName), not an array; ignored")
            }
        }
        return (errors, warnings)
    }

    /// Why an identifier is invalid (it must be `[A-Za-z0-9.-]+`), or nil when it is valid.
    public static func identifierProblem(_ identifier: String) -> String? {
        if identifier.isEmpty { return "CFBundleIdentifier is empty" }
        // Bytes first: the view asks this for every by-id lookup, and valid identifiers are the rule.
        let valid = identifier.utf8.allSatisfy { byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
        }
        if valid { return nil }
        if hasUnexpandedVariable(identifier) {
            return "CFBundleIdentifier \"\(identifier)\" holds an unexpanded build variable"
        }
        return "CFBundleIdentifier \"\(identifier)\" has characters other than A-Z, a-z, 0-9, '.' and '-'"
    }
}
