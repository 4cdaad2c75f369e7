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
        // Most names end otherwise (`.plist`, `.strings`, `.png`): ruled out by their last three
        // bytes, before seventeen suffixes are compared (1.6% of a first index's processor time).
        guard name.string.utf8.count > 4, endings.contains(ExactBytes.withBytes(name.string) { ending($0) }) else { return false }
        return suffixBytes.contains { FileNames.hasSuffixIgnoringASCIICase(name.string, $0) }
    }

    /// The last three bytes of each suffix, ASCII case folded, as one number.
    private static let endings = suffixBytes.map { ending($0) }

    private static func ending(_ bytes: some BidirectionalCollection<UInt8>) -> UInt32 {
        bytes.suffix(3).reduce(0) { key, byte in key << 8 | UInt32(FileNames.folded(byte)) }
    }

    /// Reads the archive at `path` (absolute; opened by `open`, which confines it as the caller's
    /// scan root does). The limits hold for the whole of it: both passes and the inspection.
    public func inspect(archive path: FilePath, open: () throws -> Descriptor) -> Result {
        var result = Result()
        let isInstaller = FileNames.hasSuffixIgnoringASCIICase(path.lastComponent.string, Array(".pkg".utf8))
        var listing = Listing(tree: ArchiveTree(archive: path))
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
                if isInstaller, InstallerPackage.isPayload(member.path), member.type == .regular {
                    try listPayload(member, index: index, of: first, into: &listing)
                } else {
                    try listing.add(member, at: Place(index: index, payload: nil), limits: limits)
                }
                index += 1
            }
            let ignored = [(first.unsafeNames, "leading out of the archive (`..`)"), (first.longNames, "longer than \(limits.nameBytes) bytes")]
                .filter { $0.0 > 0 }.map { "\($0.0) member names \($0.1) ignored" }
            if !ignored.isEmpty { result.error = ignored.joined(separator: "; ") }
        } catch {
            result.error = "\(error)"
        }
        result.error = result.error ?? listing.payloadErrors.sorted { $0.key < $1.key }.first.map { "\($0.key): \($0.value)" }
        result.members = first.membersListed + listing.payloadMembers
        let tree = listing.tree
        var spent = Spent(deadline: first.deadline, bytes: first.decompressedBytes)
        if !listing.wanted.isEmpty { spent = readWanted(listing.wanted, listing: listing, open: open, after: spent, error: &result.error) }
        result.records = inspectDirectories(of: tree, archive: path, deadline: spent.deadline, error: &result.error)
        // Rule 27: the rules, not mode bits, decide what is read. An executable that the Info file
        // names and nothing above guessed (no execute bit, a name other than its bundle's) is read
        // in one more pass, within what is left of the limits.
        let unread = Self.executablesNotRead(result.records, in: tree, archive: path)
            .compactMap { member in listing.places[member].map { (member, Wanted(place: $0, need: .headers)) } }
        if !unread.isEmpty, result.error == nil {
            _ = readWanted(Dictionary(unread, uniquingKeysWith: { $1 }), listing: listing, open: open, after: spent, error: &result.error)
            result.records = inspectDirectories(of: tree, archive: path, deadline: spent.deadline, error: &result.error)
        }
        if isInstaller {
            let metadata = tree.contents.filter { InstallerPackage.isMetadata($0.key) && listing.places[$0.key]?.payload == nil }
            var installer = InstallerPackage(members: metadata)
            installer.payloadErrors = listing.payloadErrors
            installer.place(&result.records, payloads: listing.payloads.keys)
            // A product archive's component directories (`Editor.pkg/`) are its layout, not packages.
            let layout = Set(listing.payloads.keys.map(\.parent) + installer.components.map(\.directory)).filter { !$0.isEmpty }
            result.records.removeAll { record in record.member.map(layout.contains) ?? false }
            result.installer = installer
            // A metadata file not read is part of the package not read (rule 33), as a payload is.
            result.error = result.error ?? installer.problems.first
        }
        return result
    }

    /// Where a member is in the archive: its place in the archive's stream, or in a payload's.
    struct Place {
        var index: Int
        /// The payload member it is inside (rule 33), if any.
        var payload: FilePath?
    }

    /// A member to read, at its last place in the archive.
    struct Wanted {
        var place: Place
        var need: Need
    }

    /// What the first pass found: the member tree, what the rules may read and where each member is.
    struct Listing {
        let tree: ArchiveTree
        // The last member of each name the rules may read, by its place in the archive: a name
        // written twice is read as extracting leaves it (unzip, tar -x and bsdtar keep the last).
        var wanted: [FilePath: Wanted] = [:]
        // Every regular member's last place, for an executable the rules name only once the Info
        // files are read.
        var places: [FilePath: Place] = [:]
        /// The payloads opened (rule 33), each at its place in the archive.
        var payloads: [FilePath: Int] = [:]
        /// Payloads that could not be read whole, and why, by payload member.
        var payloadErrors: [FilePath: String] = [:]
        var payloadMembers = 0

        init(tree: ArchiveTree) { self.tree = tree }

        mutating func add(_ member: ArchiveMember, at place: Place, limits: ArchiveLimits) throws(ArchiveError) {
            tree.add(member)
            guard tree.count <= limits.members else {
                throw ArchiveError("more than \(limits.members) members (with the directories their names imply); the rest is not read")
            }
            if member.type == .regular { places[member.path] = place }
            wanted[member.path] = ArchiveInspector.need(member, inPayload: place.payload != nil).map { Wanted(place: place, need: $0) }
        }
    }

    /// Lists an installer's payload (rule 33) into the tree under its member's path, which becomes
    /// a directory, and reads what the rules may need of its members as they pass: a payload is
    /// decompressed once, not once per pass. One that cannot be opened (`pbzx`, not cpio) stays a
    /// file; its error, or that of one that stops partway, is kept, and the archive's own limits
    /// still stop everything.
    private func listPayload(_ member: ArchiveMember, index: Int, of reader: ArchiveReader, into listing: inout Listing) throws(ArchiveError) {
        let payload: ArchiveReader
        do {
            payload = try ArchiveReader(payloadOf: reader)
        } catch {
            listing.payloadErrors[member.path] = "\(error)"
            return try listing.add(member, at: Place(index: index, payload: nil), limits: limits)
        }
        var directory = member
        directory.type = .directory
        try listing.add(directory, at: Place(index: index, payload: nil), limits: limits)
        listing.payloads[member.path] = index
        defer { listing.payloadMembers += payload.membersListed }
        var position = 0
        do {
            while let inner = try payload.next() {
                var placed = inner
                placed.path = member.path.appending(inner.path)
                try listing.add(placed, at: Place(index: position, payload: member.path), limits: limits)
                position += 1
                guard let want = listing.wanted.removeValue(forKey: placed.path) else { continue }
                do {
                    try read(want.need, of: placed, from: payload, into: listing.tree)
                } catch {
                    listing.tree.readErrors[placed.path] = "\(placed.path): not read: \(error)"
                    throw error
                }
            }
            if payload.unsafeNames > 0 { listing.payloadErrors[member.path] = "\(payload.unsafeNames) member names leading out of the payload (`..`) ignored" }
        } catch {
            listing.payloadErrors[member.path] = "\(error)"
        }
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

    /// What the rules may read of a member: its bytes, its first bytes, its headers, or nothing;
    /// or, for an installer's payload, members inside it.
    enum Need {
        case contents, prefix, headers, payload
    }

    /// `inPayload`: a member of an installer's payload is never the installer's own metadata.
    static func need(_ member: ArchiveMember, inPayload: Bool = false) -> Need? {
        guard member.type == .regular else { return nil }
        let name = member.path.lastComponent.string.lowercased()
        let parent = member.path.parent.lastComponent.string
        if name == "info.plist" || name == "info-gnustep.plist" || name == "infoplist.strings" { return .contents }
        if name == "current" && parent == "Versions" { return .contents }
        if !inPayload, InstallerPackage.isMetadata(member.path) { return .contents }
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

    /// Reads the wanted members in one pass; gives back what the limits have left. A payload with
    /// members wanted is opened again where the pass reaches it, and read forward once.
    private func readWanted(_ wanted: [FilePath: Wanted], listing: Listing, open: () throws -> Descriptor, after spent: Spent,
                            error: inout String?) -> Spent {
        var after = spent
        var outer: [Int: (path: FilePath, want: Wanted)] = [:]
        var inPayloads: [FilePath: [Int: (path: FilePath, want: Wanted)]] = [:]
        for (path, want) in wanted {
            if let payload = want.place.payload, let index = listing.payloads[payload] {
                inPayloads[payload, default: [:]][want.place.index] = (path, want)
                outer[index] = (payload, Wanted(place: Place(index: index, payload: nil), need: .payload))
            } else {
                outer[want.place.index] = (path, want)
            }
        }
        let tree = listing.tree
        do {
            let reader = try ArchiveReader(try open(), limits: limits, deadline: spent.deadline, earlierBytes: spent.bytes)
            defer { after.bytes = reader.decompressedBytes }
            try read(outer, from: reader, into: tree) { payload in
                guard let members = inPayloads[payload] else { return }
                do {
                    try read(members, from: try ArchiveReader(payloadOf: reader), into: tree, prefix: payload) { _ in }
                } catch let failure {
                    for (path, _) in members.values where tree.contents[path] == nil && tree.binaries[path] == nil {
                        tree.readErrors[path] = tree.readErrors[path] ?? "\(path): not read: \(failure)"
                    }
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

    /// One pass over `reader`'s members, reading those `wanted` names by place into the tree
    /// (their paths under `prefix`, a payload's member); `payload` opens a payload where it is reached.
    private func read(_ wanted: [Int: (path: FilePath, want: Wanted)], from reader: ArchiveReader, into tree: ArchiveTree, prefix: FilePath? = nil,
                      payload: (FilePath) throws -> Void) throws {
        var left = wanted.count
        var index = -1
        while left > 0, let member = try reader.next() {
            index += 1
            let path = prefix.map { $0.appending(member.path) } ?? member.path
            guard let entry = wanted[index], entry.path == path else { continue }
            left -= 1
            if entry.want.need == .payload {
                try payload(path)
            } else {
                var placed = member
                placed.path = path
                try read(entry.want.need, of: placed, from: reader, into: tree)
            }
        }
    }

    /// What the rules need of the current member (`member.path` its place in the tree).
    private func read(_ need: Need, of member: ArchiveMember, from reader: ArchiveReader, into tree: ArchiveTree) throws(ArchiveError) {
        if member.isEncrypted {
            tree.readErrors[member.path] = "\(member.path): encrypted in the archive; not read"
            return
        }
        switch need {
        case .contents: tree.contents[member.path] = try reader.read(limit: limits.memberBytes)
        case .prefix: tree.contents[member.path] = try reader.read(limit: 64)
        case .headers: tree.binaries[member.path] = BinaryReader.read(reader.memberSource(), file: member.path)
        case .payload: break
        }
    }

    /// Every directory of the tree through the rules, parents first; the structural directories of
    /// a bundle found (its `Contents`, a framework's `Versions/A`) are parts of it, not bundles.
    private func inspectDirectories(of tree: ArchiveTree, archive: FilePath, deadline: Double, error: inout String?) -> [BundleRecord] {
        var records: [BundleRecord] = []
        var structures: [FilePath: BundleStructure] = [:]
        // The innermost bundle each directory is in, from its parent's (parents come first): one
        // lookup per directory, where a search of every bundle found grew with the archive (a
        // product of 10,000 components, a bundle in each, took 26 s).
        var innermost: [FilePath: FilePath] = [:]
        for directory in tree.directories where !directory.isEmpty {
            guard Clocks.monotonicSeconds() <= deadline else {
                error = error ?? ArchiveReader.timeError(limits)
                break
            }
            let parent = directory.parent
            if let bundle = structures[parent] != nil ? parent : innermost[parent] {
                innermost[directory] = bundle
                if let structure = structures[bundle], let relative = directory.relative(to: bundle), Self.isStructural(relative, in: structure) {
                    continue
                }
            }
            let context = DirectoryContext(path: archive.appending(directory), relativePath: directory, descriptor: nil,
                                           entries: tree.entries(of: directory), hasSidecar: false)
            guard var record = inspector.inspect(context, in: tree) else { continue }
            record.archive = archive
            record.member = directory
            // The archive's own stamp decides when it is read again; its members have none on disk.
            record.stamps = []
            structures[directory] = BundleStructure(record: record)
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
