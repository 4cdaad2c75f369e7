public import SystemCalls

/// Reads an executable's or a DWARF file's headers, whatever its format (rule 23): the slices it
/// holds and what was wrong with it. Bounded: at most `budget` bytes are read from the file.
public enum BinaryReader {
    public struct Result: Sendable {
        public var slices: [BinarySlice] = []
        /// The file is not a binary at all (a script, a text file): no slices, no error.
        public var isNotBinary = false
        public var errors: [String] = []
        /// The file read, every symlink resolved, relative to the scan root; nil when it was not
        /// a file on disk inside the root (an archive's member, a link out of the root).
        public var openedPath: FilePath?
    }

    /// Enough for the largest real load commands, a universal file's slices and their signatures.
    public static let defaultBudget = 16 << 20

    /// - Parameter file: the path recorded in each slice (relative to its bundle).
    public static func read(_ source: any ByteSource, file: FilePath, budget: Int = defaultBudget) -> Result {
        var reader = BoundedReader(source, budget: budget)
        var result = Result()
        guard source.size >= 4, let magic = try? reader.fields(at: 0, count: 4, bigEndian: true, "the magic number"), let word = try? magic.u32(0) else {
            result.isNotBinary = true
            return result
        }
        if MachOReader.isFatMagic(word) {
            result.slices = MachOReader.readUniversal(&reader, file: file, errors: &result.errors)
        } else if MachOReader.isThinMagic(word) {
            do {
                result.slices = [try MachOReader.readThin(&reader, at: 0, size: source.size, file: file, errors: &result.errors)]
            } catch {
                result.errors.append("\(error)")
            }
        } else if word == ELFReader.magic {
            result.slices = ELFReader.read(&reader, file: file, errors: &result.errors).map { [$0] } ?? []
        } else {
            result.isNotBinary = true
        }
        return result
    }
}
