/// SPEC.md "Symbol stores for the tools people already run": the file layouts crash tools read by
/// UUID or build-id, and what a path in one names. Pure, so that the view and the HTTP server read
/// paths alike.
public enum SymbolLayout: String, Sendable, CaseIterable {
    /// Sentry symbolicator's `native` layout, which lldb's `DBGFileMappedPaths` reads on a Mac: a
    /// Mach-O UUID's 32 hex digits upper-case as `XXXX/XXXX/XXXX/XXXX/XXXX/XXXXXXXXXXXX` (the dSYM's
    /// DWARF file), the same plus `.app` (the executable); an ELF build-id lower-case as
    /// `nn/rest.debug` (the debug file) and `nn/rest` (the executable).
    case native
    /// symbolicator's `unified` layout: `xx/rest/debuginfo` and `xx/rest/executable`, lower-case.
    case unified

    /// Which file of an image a path asks for.
    public enum Role: String, Sendable, CaseIterable {
        case debugInfo = "debuginfo"
        case executable
    }

    /// What a path names: a UUID or build-id as the catalogue keys it (`BinarySlice.uuidKey`:
    /// lower-case hex, no hyphens) and the file wanted.
    public struct Entry: Sendable, Hashable {
        public var key: String
        public var role: Role

        public init(key: String, role: Role) {
            self.key = key
            self.role = role
        }
    }

    /// The components of the Mach-O form of `native`: 32 hex digits in groups.
    static let machOGroups = [4, 4, 4, 4, 4, 12]

    /// What a path relative to the layout's root names; nil when it names nothing (lookups ignore
    /// case, as the tools and file systems that serve these layouts do).
    public func entry(_ components: [String]) -> Entry? {
        switch self {
        case .native:
            if components.count == Self.machOGroups.count {
                var last = components[components.count - 1]
                let isExecutable = Self.dropSuffix(".app", from: &last)
                let groups = components.dropLast() + [last]
                guard zip(groups, Self.machOGroups).allSatisfy({ $0.utf8.count == $1 && Self.isHex($0) }) else { return nil }
                return Entry(key: groups.joined().lowercased(), role: isExecutable ? .executable : .debugInfo)
            }
            guard components.count == 2 else { return nil }
            var rest = components[1]
            let isDebug = Self.dropSuffix(".debug", from: &rest)
            guard let key = Self.buildID(components[0], rest) else { return nil }
            return Entry(key: key, role: isDebug ? .debugInfo : .executable)
        case .unified:
            guard components.count == 3, let key = Self.buildID(components[0], components[1]),
                  let role = Role.allCases.first(where: { $0.rawValue == components[2].lowercased() })
            else { return nil }
            return Entry(key: key, role: role)
        }
    }

    /// The path of an image's file in this layout. A 32-digit key of a Mach-O image takes the
    /// Mach-O form of `native`; anything else the build-id form.
    public func components(of entry: Entry, format: BinarySlice.Format) -> [String] {
        let key = Array(entry.key.lowercased().utf8)
        let head = String(decoding: key.prefix(2), as: UTF8.self), rest = String(decoding: key.dropFirst(2), as: UTF8.self)
        switch self {
        case .native where format == .machO && key.count == 32:
            var groups: [String] = []
            var start = 0
            for width in Self.machOGroups {
                groups.append(String(decoding: key[start..<start + width], as: UTF8.self).uppercased())
                start += width
            }
            if entry.role == .executable { groups[groups.count - 1] += ".app" }
            return groups
        case .native:
            return [head, rest + (entry.role == .debugInfo ? ".debug" : "")]
        case .unified:
            return [head, rest, entry.role.rawValue]
        }
    }

    /// A build-id split as `nn/rest`: two hex digits, then at least six (a build-id has 4 bytes at
    /// least, BUNDLES.md rule 25), even in all.
    private static func buildID(_ head: String, _ rest: String) -> String? {
        guard head.utf8.count == 2, rest.utf8.count >= 6, rest.utf8.count % 2 == 0, isHex(head), isHex(rest) else { return nil }
        return (head + rest).lowercased()
    }

    private static func isHex(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Removes a suffix compared without case; whether it was there.
    private static func dropSuffix(_ suffix: String, from text: inout String) -> Bool {
        guard text.utf8.count > suffix.utf8.count, text.lowercased().hasSuffix(suffix) else { return false }
        text = String(text.utf8.dropLast(suffix.utf8.count))!
        return true
    }
}
