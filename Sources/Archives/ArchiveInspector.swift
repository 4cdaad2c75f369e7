public import BundleModel
public import SystemCalls

/// Finds and reads the bundles inside one archive (BUNDLES.md rule 26) without extracting it:
/// a first pass lists the members, a second reads only those the rules may need (Info files,
/// strings files, a framework's `Current`, PNG headers, executables' and DWARF files' headers),
/// then the inspection rules run over the member tree. Archives inside the archive are not opened.
public struct ArchiveInspector: Sendable {
    public let inspector: BundleInspector
    public let limits: ArchiveLimits

    public init(inspector: BundleInspector, limits: ArchiveLimits = .standard) {
        self.inspector = inspector
        self.limits = limits
    }

    /// What one archive holds.
    public struct Result: Sendable {
        public var records: [BundleRecord] = []
        /// Why the archive could not be read whole (it is still catalogued with what was found).
        public var error: String?
        public var members = 0
        /// A flat installer package's product and components (rule 33); nil for other archives.
        public var installer: InstallerPackage?
    }

    /// Archive file names bundlefs looks into (rule 26), by lower-cased suffix.
    /// `.whl`: a Python wheel is a zip, and macOS wheels carry applications and frameworks.
    public static let suffixes = [".ipa", ".zip", ".whl", ".tar", ".tgz", ".tar.gz", ".tbz", ".tbz2", ".tar.bz2", ".txz", ".tar.xz",
                                  ".tzst", ".tar.zst", ".xar", ".pkg", ".xip", ".cpio"]

    private static let suffixBytes = suffixes.map { Array($0.utf8) }

    /// Asked of every file name a walk lists: compares bytes, ASCII case folded, without making a
    /// lower-cased copy of the name.
    public static func isArchiveName(_ name: FileName) -> Bool {
        suffixBytes.contains { FileNames.hasSuffixIgnoringASCIICase(name.string, $0) }
    }

    /// Reads the archive at `path` (absolute; opened by `open`, which confines it as the caller's
    /// scan root does). The limits hold for the whole of it: both passes and the inspection.
    public func inspect(archive path: FilePath, open: () throws -> Descriptor) -> Result {
        var result = Result()
        let tree = ArchiveTree(archive: path)
        // The last member of each name the rules may read, by its place in the archive: a name
        // written twice is read as extracting leaves it (unzip, tar -x and bsdtar keep the last).
        var wanted: [FilePath: Wanted] = [:]
        // Every regular member's last place, for an executable the rules name only once the Info
        // files are read.
        var places: [FilePath: Int] = [:]
        let first: ArchiveReader
        do {
            first = try ArchiveReader(try open(), limits: limits)
        } catch {
            result.error = "\(error)"
            return result
        }
        do {
            var index = 0
            while let member = try first.next() {
                tree.add(member)
                guard tree.count <= limits.members else {
                    throw ArchiveError("more than \(limits.members) members (with the directories their names imply); the rest is not read")
                }
                if member.type == .regular { places[member.path] = index }
                wanted[member.path] = Self.need(member).map { Wanted(index: index, need: $0) }
                index += 1
            }
            let ignored = [(first.unsafeNames, "leading out of the archive (`..`)"), (first.longNames, "longer than \(limits.nameBytes) bytes")]
                .filter { $0.0 > 0 }.map { "\($0.0) member names \($0.1) ignored" }
            if !ignored.isEmpty { result.error = ignored.joined(separator: "; ") }
        } catch {
            result.error = "\(error)"
        }
        result.members = first.membersListed
        var spent = Spent(deadline: first.deadline, bytes: first.decompressedBytes)
        if !wanted.isEmpty { spent = readWanted(wanted, into: tree, open: open, after: spent, error: &result.error) }
        result.records = inspectDirectories(of: tree, archive: path, deadline: spent.deadline, error: &result.error)
        if FileNames.hasSuffixIgnoringASCIICase(path.lastComponent.string, Array(".pkg".utf8)) {
            result.installer = InstallerPackage(members: tree.contents.filter { InstallerPackage.isMetadata($0.key) })
        }
        // Rule 27: the rules, not mode bits, decide what is read. An executable that the Info file
        // names and nothing above guessed (no execute bit, a name other than its bundle's) is read
        // in one more pass, within what is left of the limits.
        let unread = Self.executablesNotRead(result.records, in: tree, archive: path)
            .compactMap { member in places[member].map { (member, Wanted(index: $0, need: .headers)) } }
        if !unread.isEmpty, result.error == nil {
            _ = readWanted(Dictionary(unread, uniquingKeysWith: { $1 }), into: tree, open: open, after: spent, error: &result.error)
            result.records = inspectDirectories(of: tree, archive: path, deadline: spent.deadline, error: &result.error)
        }
        return result
    }

    /// A member to read, at its last place in the archive.
    struct Wanted {
        var index: Int
        var need: Need
    }

    /// The executables records name whose headers were not read (nor tried).
    static func executablesNotRead(_ records: [BundleRecord], in tree: ArchiveTree, archive: FilePath) -> [FilePath] {
        records.compactMap { record in
            guard let executable = record.executable.flatMap({ $0.relative(to: archive) }),
                  tree.binaries[executable] == nil, tree.readErrors[executable] == nil
            else { return nil }
            return executable
        }
    }

    /// What the first pass used of the archive's limits.
    struct Spent {
        var deadline: Double
        var bytes: Int64
    }

    /// What the rules may read of a member: its bytes, its first bytes, its headers, or nothing.
    enum Need {
        case contents, prefix, headers
    }

    static func need(_ member: ArchiveMember) -> Need? {
        guard member.type == .regular else { return nil }
        let name = member.path.lastComponent.string.lowercased()
        let parent = member.path.parent.lastComponent.string
        if name == "info.plist" || name == "info-gnustep.plist" || name == "infoplist.strings" { return .contents }
        if name == "current" && parent == "Versions" { return .contents }
        if InstallerPackage.isMetadata(member.path) { return .contents }
        if name.hasSuffix(".png") { return .prefix }
        // Executables where they usually are: in MacOS/, in a dSYM's DWARF/, named as their bundle
        // at its top or in Versions/X (frameworks, GNUstep), or marked executable. Others that an
        // Info file names are read after it (`executablesNotRead`).
        return parent == "MacOS" || parent == "DWARF" || member.permissions & 0o111 != 0 || isNamedAsItsBundle(member.path) ? .headers : nil
    }

    /// `Kit.framework/Kit`, `Kit.framework/Versions/A/Kit`, `Tool.app/Tool`: a file named as the
    /// bundle it is in, at the bundle's top or one version down.
    static func isNamedAsItsBundle(_ path: FilePath) -> Bool {
        let components = path.components
        guard let name = components.last else { return false }
        func isBundle(_ directory: FileName) -> Bool { directory.lowercasedExtension != nil && directory.stem == name }
        if components.count >= 2, isBundle(components[components.count - 2]) { return true }
        return components.count >= 4 && components[components.count - 3] == "Versions" && isBundle(components[components.count - 4])
    }

    /// Reads the wanted members in one pass; gives back what the limits have left.
    private func readWanted(_ wanted: [FilePath: Wanted], into tree: ArchiveTree, open: () throws -> Descriptor, after spent: Spent,
                            error: inout String?) -> Spent {
        var after = spent
        do {
            let reader = try ArchiveReader(try open(), limits: limits, deadline: spent.deadline, earlierBytes: spent.bytes)
            defer { after.bytes = reader.decompressedBytes }
            var left = wanted.count
            var index = -1
            while left > 0, let member = try reader.next() {
                index += 1
                guard let want = wanted[member.path], want.index == index else { continue }
                left -= 1
                if member.isEncrypted {
                    tree.readErrors[member.path] = "\(member.path): encrypted in the archive; not read"
                    continue
                }
                switch want.need {
                case .contents: tree.contents[member.path] = try reader.read(limit: limits.memberBytes)
                case .prefix: tree.contents[member.path] = try reader.read(limit: 64)
                case .headers: tree.binaries[member.path] = BinaryReader.read(reader.memberSource(), file: member.path)
                }
            }
        } catch let failure {
            error = error ?? "\(failure)"
            for path in wanted.keys where tree.contents[path] == nil && tree.binaries[path] == nil && tree.readErrors[path] == nil {
                tree.readErrors[path] = "\(path): not read: \(failure)"
            }
        }
        return after
    }

    /// Every directory of the tree through the rules, parents first; the structural directories of
    /// a bundle found (its `Contents`, a framework's `Versions/A`) are parts of it, not bundles.
    private func inspectDirectories(of tree: ArchiveTree, archive: FilePath, deadline: Double, error: inout String?) -> [BundleRecord] {
        var records: [BundleRecord] = []
        var structures: [(path: FilePath, structure: BundleStructure)] = []
        for directory in tree.directories where !directory.isEmpty {
            guard Clocks.monotonicSeconds() <= deadline else {
                error = error ?? ArchiveReader.timeError(limits)
                break
            }
            if let (bundle, structure) = structures.last(where: { directory.isWithin($0.path) && directory != $0.path }),
               let relative = directory.relative(to: bundle), Self.isStructural(relative, in: structure) {
                continue
            }
            let context = DirectoryContext(path: archive.appending(directory), relativePath: directory, descriptor: nil,
                                           entries: tree.entries(of: directory), hasSidecar: false)
            guard var record = inspector.inspect(context, in: tree) else { continue }
            record.archive = archive
            record.member = directory
            // The archive's own stamp decides when it is read again; its members have none on disk.
            record.stamps = []
            structures.append((directory, BundleStructure(record: record)))
            records.append(record)
        }
        return records
    }

    static func isStructural(_ relative: FilePath, in structure: BundleStructure) -> Bool {
        var current = structure
        var structural = false
        for name in relative.components {
            (structural, current) = current.descending(into: name)
            if !structural && current.isEmpty { return false }
        }
        return structural
    }
}
