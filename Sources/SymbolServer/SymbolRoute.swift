public import BundleModel
import Codecs

/// What a request's target asks for (SPEC.md "Symbol stores"): debuginfod's
/// `/buildid/ID/debuginfo` and `/buildid/ID/executable`, and symbolicator's two layouts under
/// `/native/` and `/unified/`. Pure: a target is read as text and mapped to a catalogue key and a
/// role, never to a path on disk.
public enum SymbolRoute: Equatable, Sendable {
    case file(SymbolLayout.Entry)
    /// Under a known prefix but not a valid name: 400.
    case malformed
    /// Nothing is served there (other prefixes, debuginfod's `source` and `section`): 404.
    case unknown

    public static let debuginfodPrefix = "buildid"

    /// The route of a request target (`/path?query`; the query is ignored, as debuginfod's own
    /// server does). Percent-escapes are decoded per component; a component that decodes to `.`,
    /// `..`, or holds `/` or NUL, an empty component, or a bad escape is malformed wherever it is.
    public init(target: String) {
        var path = Substring(target)
        if let query = path.firstIndex(of: "?") { path = path[..<query] }
        guard path.first == "/" else { self = .malformed; return }
        guard path != "/" else { self = .unknown; return }
        var components: [String] = []
        for raw in path.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard let component = Self.decoded(raw), !component.isEmpty, component != ".", component != ".." else {
                self = .malformed
                return
            }
            components.append(component)
        }
        guard let prefix = components.first else { self = .unknown; return }
        let rest = Array(components.dropFirst())
        switch prefix {
        case Self.debuginfodPrefix:
            guard rest.count >= 2 else { self = .malformed; return }
            guard let key = Self.buildID(rest[0]) else { self = .malformed; return }
            switch rest[1] {
            case SymbolLayout.Role.debugInfo.rawValue where rest.count == 2: self = .file(SymbolLayout.Entry(key: key, role: .debugInfo))
            case SymbolLayout.Role.executable.rawValue where rest.count == 2: self = .file(SymbolLayout.Entry(key: key, role: .executable))
            // debuginfod's source files and sections: a valid question this server has no answer to.
            case "source", "section": self = .unknown
            default: self = .malformed
            }
        default:
            guard let layout = SymbolLayout(rawValue: prefix) else { self = .unknown; return }
            self = layout.entry(rest).map(SymbolRoute.file) ?? .malformed
        }
    }

    /// debuginfod's ID: hex digits (any case, no hyphens), an even number of them, 8 at least (a
    /// 4-byte build-id, BUNDLES.md rule 25) and at most 128 (a 64-byte one); lower-cased as the
    /// catalogue keys it.
    static func buildID(_ text: String) -> String? {
        guard (8...128).contains(text.utf8.count), Hex.bytes(text) != nil else { return nil }
        return text.lowercased()
    }

    /// A component with its `%XX` escapes decoded (`PercentEncoding`); nil for a bad escape, a
    /// `/` or NUL, or bytes that are not UTF-8.
    static func decoded(_ raw: Substring) -> String? {
        guard let text = PercentEncoding.decode(String(raw)), !text.utf8.contains(0), !text.utf8.contains(UInt8(ascii: "/")) else { return nil }
        return text
    }
}
