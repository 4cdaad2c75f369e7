/// A file name compared and hashed by its bytes. Swift's String equality is canonical equivalence,
/// under which `café` spelled precomposed and decomposed are one name; to a file system (and to the
/// kernel's dentry cache) they are two.
struct ExactName: Hashable, Sendable {
    let value: String

    init(_ value: String) { self.value = value }

    static func == (a: ExactName, b: ExactName) -> Bool { a.value.utf8.elementsEqual(b.value.utf8) }

    func hash(into hasher: inout Hasher) {
        for byte in value.utf8 { hasher.combine(byte) }
    }
}

extension String {
    /// Byte order of the file-system names (what `ls` with LC_ALL=C shows).
    func precedesInByteOrder(_ other: String) -> Bool { utf8.lexicographicallyPrecedes(other.utf8) }
}
