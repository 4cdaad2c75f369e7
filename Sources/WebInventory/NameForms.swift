import Foundation

/// A text in the two forms a name may be written in: NFC, as keyboards type it, and NFD, as macOS
/// writes file names. A name is matched as it is kept, so a search looks for both.
enum NameForms {
    static func of(_ text: String) -> [String] {
        let composed = text.precomposedStringWithCanonicalMapping, decomposed = text.decomposedStringWithCanonicalMapping
        // Compared as bytes: as Strings, the two forms are one.
        return Array(composed.utf8) == Array(decomposed.utf8) ? [composed] : [composed, decomposed]
    }
}
