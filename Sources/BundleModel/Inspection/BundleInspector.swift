import Codecs
public import SystemCalls

/// Reads one directory into a `BundleRecord`, applying the recognition, layout, Info, localization
/// and claim rules. Never throws: what goes wrong is recorded on the record, and the directory is
/// still catalogued when it is a bundle or a package.
public struct BundleInspector: Sendable {
    public let root: ScanRoot
    public let settings: InspectionSettings

    public init(root: ScanRoot, settings: InspectionSettings = .standard) {
        self.root = root
        self.settings = settings
    }

    /// Whether a name (in any case) is one that rule 2 decides layouts by; such entries' symlinks
    /// are resolved when a directory is inspected.
    public static func isMarker(_ name: FileName) -> Bool {
        name.equalsIgnoringASCIICase("contents") || name.equalsIgnoringASCIICase("resources")
            || name.equalsIgnoringASCIICase("support files") || name.equalsIgnoringASCIICase("versions")
            || name.equalsIgnoringASCIICase("info.plist") || name.equalsIgnoringASCIICase("info-gnustep.plist")
    }

    /// The record for a directory, or nil when it is neither a bundle nor a package. The
    /// subdirectory listings it makes go to `recorder`, when given.
    public func inspect(_ directory: DirectoryContext, recorder: ListingRecorder? = nil) -> BundleRecord? {
        let scope = ResolutionScope(root: root, base: directory.descriptor, baseRelative: directory.relativePath)
        return Inspection(inspector: self, recorder: recorder, source: scope).inspect(directory)
    }

    /// The same rules over another tree (an archive's members): `directory.relativePath` is
    /// relative to what `source` reads.
    public func inspect(_ directory: DirectoryContext, in source: some InspectionSource) -> BundleRecord? {
        Inspection(inspector: self, recorder: nil, source: source).inspect(directory)
    }
}

/// One inspection: the inspector's rules, where its listings go, and the scope its reads resolve in.
struct Inspection {
    let inspector: BundleInspector
    let recorder: ListingRecorder?
    /// The tree read: on disk, reads resolve from the inspected directory when they can (see
    /// `ResolutionScope`).
    let root: any InspectionSource
    var settings: InspectionSettings { inspector.settings }

    init(inspector: BundleInspector, recorder: ListingRecorder?, source: any InspectionSource) {
        self.inspector = inspector
        self.recorder = recorder
        root = source
    }

    func inspect(_ directory: DirectoryContext) -> BundleRecord? {
        let ext = directory.name.lowercasedExtension
        var record = BundleRecord(key: directory.path)
        readFinderInfo(directory, into: &record)
        if settings.rules.isPackageExtension(ext) { record.packageReasons.insert(.extension) }
        if settings.rules.isSystemTypeExtension(ext) { record.packageReasons.insert(.systemType) }
        if let ext, settings.claimed.extensions.contains(ext) { record.packageReasons.insert(.claimed) }
        if let flags = record.finderFlags, flags & FinderInfo.hasBundleFlag != 0 { record.packageReasons.insert(.finderBit) }

        let namedLikeBundle = ext.map { BundleKind.bundleExtensions.contains($0) } ?? false
        // Most directories are plain folders: no reason to be a package, no bundle name, no marker.
        if record.packageReasons.isEmpty && !namedLikeBundle && !directory.entries.contains(where: { BundleInspector.isMarker($0.name) }) {
            return nil
        }
        let listing = self.listing(of: directory.entries, in: directory.relativePath, resolving: BundleInspector.isMarker)
        var layoutNote: String?
        let layout = BundleLayout.detect(listing: listing, lowercasedExtension: ext) {
            let version = currentFrameworkVersion(directory.relativePath)
            layoutNote = version?.note
            return version?.name
        }
        // Most directories have no bundle markers and no package reason: leave quickly.
        if layout == nil && record.packageReasons.isEmpty { return nil }

        let info = layout.flatMap { findInfoFile(bundle: directory.relativePath, layout: $0, topListing: listing) }
        if (namedLikeBundle && FolderNamedLikeBundle.applies(hasInfoFile: info != nil, entries: directory.entries))
            || ((namedLikeBundle || info != nil) && isDebianSharedHalf(directory)) {
            record.kind = .folder
            return record
        }
        record.isBundle = layout != nil && (info != nil || namedLikeBundle)
        if !record.isBundle && record.packageReasons.isEmpty { return nil }

        var resourcesListing: Listing?
        if let layout, record.isBundle {
            record.layout = layout.kind
            record.resourcesDirectory = layout.resourcesDirectory
            record.versionResourcesDirectory = layout.versionResourcesDirectory
            if let layoutNote { record.warnings.append(layoutNote) }
            if let info {
                readInfo(info, bundle: directory.relativePath, into: &record)
            } else {
                record.errors.append("no Info.plist in \(layout.infoDirectory.isEmpty ? "the bundle" : layout.infoDirectory.string + "/")")
            }
            resourcesListing = readLocalizations(bundle: directory.relativePath, topListing: listing, into: &record)
            findExecutable(bundle: directory.relativePath, layout: layout, topEntries: directory.entries, into: &record)
            readBinaries(bundle: directory.relativePath, into: &record)
            findIcon(bundle: directory.relativePath, resources: resourcesListing, into: &record)
        } else if layout == nil && namedLikeBundle {
            record.errors.append("no bundle structure: none of Contents/, Resources/, Support Files/ or an Info.plist")
        }
        let infoDictionary = record.infoDictionary
        record.kind = BundleKind.of(packageType: infoDictionary.packageType, lowercasedExtension: ext, isBundle: record.isBundle)
        if record.isApplication {
            record.documentTypes = DocumentType.parse(infoDictionary)
            findDocumentIcons(bundle: directory.relativePath, resources: resourcesListing, into: &record)
        }
        // A claimed document package shows the claiming type's icon (rule 21).
        if !record.isBundle, record.packageReasons.contains(.claimed), let ext { record.icon = settings.claimed.icons[ext] }
        record.typeDeclarations = TypeDeclaration.parse(infoDictionary)
        if TimeMachineBackup.isBackup(lowercasedExtension: ext, entries: directory.entries) {
            readBackup(bundle: directory.relativePath, entries: directory.entries, into: &record)
        }
        record.stamps.sort { $0.path < $1.path }
        return record
    }

    /// Rule 29a, on disk only (an archive's members link nowhere).
    private func isDebianSharedHalf(_ directory: DirectoryContext) -> Bool {
        root is ResolutionScope && DebianSharedHalf.linkingBundle(of: directory.path) != nil
    }

    // MARK: Finder info

    private func readFinderInfo(_ directory: DirectoryContext, into record: inout BundleRecord) {
        guard root.hasExtendedAttributes else { return }
        var openSidecar: ((Int32) throws -> Descriptor)?
        // A sidecar is a file on disk beside the directory (an archive's members have none).
        if directory.hasSidecar, !directory.relativePath.isEmpty, let disk = root as? any BeneathReading {
            let sidecar = directory.relativePath.parent.appending(directory.name.prefixed("._"))
            openSidecar = { flags in try disk.open(sidecar, flags: flags) }
        }
        let lookup = FinderInfo.lookUp(attributes: directory.descriptor.map { .descriptor($0) } ?? .path(directory.path), openSidecar: openSidecar)
        if let found = lookup.found {
            record.finderFlags = found.finderFlags
            record.finderInfoSource = found.source
        }
        for place in lookup.passedOver {
            switch place {
            case let .malformedAttribute(source, byteCount):
                record.warnings.append("extended attribute \(source.rawValue) is malformed (\(byteCount) bytes); ignored")
            case .malformedSidecar:
                record.warnings.append("AppleDouble file ._\(directory.name) is malformed; ignored")
            case let .unreadableSidecar(error):
                record.warnings.append("AppleDouble file ._\(directory.name) could not be read: \(error)")
            }
        }
    }

    // MARK: Listings

    /// Turns raw entries into a `Listing`, resolving symlinks (beneath the root) only for names
    /// that `resolving` picks; other symlinks count as `.other`.
    func listing(of entries: [DirectoryEntry], in relative: FilePath, resolving: (FileName) -> Bool) -> Listing {
        var kinds: [FileName: EntryKind] = [:]
        kinds.reserveCapacity(entries.count)
        for entry in entries {
            var type = entry.type
            // Some file systems leave d_type empty: ask lstat.
            if type == .unknown, let status = root.entryStatus(entry.name, in: relative) {
                type = status.type
            }
            switch type {
            case .directory: kinds[entry.name] = .directory
            case .regular: kinds[entry.name] = .file
            case .symlink:
                guard resolving(entry.name), let target = root.status(relative.appending(entry.name)) else {
                    kinds[entry.name] = .other
                    continue
                }
                kinds[entry.name] = target.type == .directory ? .symlinkToDirectory : target.type == .regular ? .symlinkToFile : .other
            default: kinds[entry.name] = .other
            }
        }
        return Listing(kinds)
    }

    private func currentFrameworkVersion(_ bundle: FilePath) -> (name: FileName, note: String?)? {
        let versionsPath = bundle.appending("Versions")
        guard let (entries, _) = root.list(versionsPath, recorder: recorder) else { return nil }
        let versions = listing(of: entries, in: versionsPath, resolving: { _ in true })
        var linkTarget: String?
        var standIn: String?
        if let entry = entries.first(where: { $0.name == "Current" }) {
            if entry.type == .symlink {
                linkTarget = root.readLink("Current", in: versionsPath)?.string
            } else if entry.type == .regular, let (bytes, _) = try? root.readRegularFile(versionsPath.appending("Current"), limit: 256, knownRegular: false) {
                standIn = String(decoding: bytes, as: UTF8.self).trimmingSpaces
            }
        }
        return FrameworkVersions.current(versions: versions, currentLinkTarget: linkTarget, currentStandInText: standIn)
    }

    // MARK: Info file

    /// The Info file's path relative to the bundle, or nil. Exact names first, GNUstep's winning;
    /// then a case-insensitive match, which is noted.
    private func findInfoFile(bundle: FilePath, layout: BundleLayout, topListing: Listing) -> InfoFile? {
        for directory in [layout.infoDirectory] + layout.alternateInfoDirectories {
            let listing: Listing
            if directory.isEmpty {
                listing = topListing
            } else {
                guard let (entries, _) = root.list(bundle.appending(directory), recorder: recorder) else { continue }
                listing = self.listing(of: entries, in: bundle.appending(directory), resolving: BundleInspector.isMarker)
            }
            // Anything but a directory counts as present: reading a FIFO, device or dangling link
            // then fails with an error that says what it is.
            for name in BundleLayout.infoFileNames {
                if let kind = listing.entries[name], !kind.isDirectoryLike {
                    return InfoFile(path: directory.appending(name), caseMismatch: false, isPlainFile: kind == .file)
                }
            }
            for name in BundleLayout.infoFileNames {
                if let real = listing.realName(name, where: \.isFileLike) {
                    return InfoFile(path: directory.appending(real), caseMismatch: true, isPlainFile: listing.entries[real] == .file)
                }
            }
        }
        return nil
    }

    struct InfoFile {
        var path: FilePath
        var caseMismatch: Bool
        /// The listing says it is a regular file (not a symlink): no need to check before opening.
        var isPlainFile: Bool
    }

    private func readInfo(_ info: InfoFile, bundle: FilePath, into record: inout BundleRecord) {
        record.infoFile = info.path
        if info.caseMismatch {
            record.warnings.append("\(info.path) is not spelled Info.plist exactly; read anyway")
        }
        guard let (bytes, status) = readFile(bundle.appending(info.path), limit: settings.infoFileLimit, label: info.path.string,
                                              knownRegular: info.isPlainFile, into: &record) else { return }
        record.stamps.append(FileStamp(path: info.path, changeTime: status.changeTime, size: status.size, inode: status.inode))
        do {
            let document = try PropertyListReader.read(bytes)
            record.infoFormat = document.format
            for problem in document.problems { record.warnings.append("\(info.path): \(problem)") }
            guard case let .dictionary(dictionary) = document.value else {
                record.errors.append("\(info.path): the root is a \(document.value.typeName), not a dictionary")
                return
            }
            record.info = dictionary
            let (errors, warnings) = InfoDictionary(dictionary).problems()
            record.errors += errors
            record.warnings += warnings
        } catch {
            record.errors.append("\(info.path): \(error)")
        }
    }

    /// Reads a whole regular file beneath the root, bounded; failures become errors on the record.
    func readFile(_ relative: FilePath, limit: Int, label: String, knownRegular: Bool = false, into record: inout BundleRecord) -> ([UInt8], FileStatus)? {
        do {
            return try root.readRegularFile(relative, limit: limit, knownRegular: knownRegular)
        } catch let error as BoundedReadError {
            switch error {
            case let .notRegularFile(_, type): record.errors.append("\(label): is a \(type), not a file; not read")
            case let .tooLarge(_, size, limit):
                record.errors.append("\(label): \(size) bytes is more than the \(limit >> 20) MiB limit; not read")
            }
        } catch let error as SystemError {
            let reason = error.errno == EXDEV_ ? "leads outside \(root.confinement); not read" : error.message
            record.errors.append("\(label): \(reason)")
        } catch {
            record.errors.append("\(label): \(error)")
        }
        return nil
    }

    // MARK: Localizations

    /// The lprojs of every resources directory (rule 10), and the InfoPlist.strings files rule 12
    /// can pick: in each lproj, the first resources directory that has one. Returns the listing of
    /// the first resources directory, which finding the icon reuses.
    private func readLocalizations(bundle: FilePath, topListing: Listing, into record: inout BundleRecord) -> Listing? {
        var primary: Listing?
        var lprojs: [FileName] = []
        var lprojDirectories: [(lproj: FileName, path: FilePath)] = []
        for resources in record.resourceSearchDirectories {
            let resourcesPath = bundle.appending(resources)
            let listing: Listing
            if resources.isEmpty {
                listing = topListing
            } else {
                guard let (entries, status) = root.list(resourcesPath, recorder: recorder) else { continue }
                record.stamps.append(FileStamp(path: resources, changeTime: status.changeTime, size: status.size, inode: status.inode))
                listing = self.listing(of: entries, in: resourcesPath, resolving: \.isLproj)
            }
            if primary == nil { primary = listing }
            // Only the lprojs are sorted (by real name, so the InfoPlist.strings read first is the
            // same on every run), not the whole listing.
            var found: [FileName] = []
            for (name, kind) in listing.entries where kind.isDirectoryLike && name.isLproj { found.append(name) }
            for name in found.sorted() {
                lprojs.append(name.stem)
                lprojDirectories.append((name.stem, resources.appending(name)))
            }
            if record.infoPlistStrings[""] == nil, let kind = listing.entries["InfoPlist.strings"], kind.isFileLike {
                readStrings(resources.appending("InfoPlist.strings"), bundle: bundle, localization: "", knownRegular: kind == .file, into: &record)
            }
        }
        // A framework's two resources directories may both hold an lproj: it is listed once.
        record.localizations = (record.versionResourcesDirectory == nil ? lprojs : Array(Set(lprojs))).sorted().map(\.string)
        // Listing each lproj tells whether it has an InfoPlist.strings and whether that is a plain
        // file; the walk reuses the listing instead of making its own.
        for (lproj, lprojPath) in lprojDirectories where record.infoPlistStrings[lproj] == nil {
            guard let (entries, _) = root.list(bundle.appending(lprojPath), recorder: recorder),
                  let entry = entries.first(where: { $0.name == "InfoPlist.strings" })
            else { continue }
            readStrings(lprojPath.appending("InfoPlist.strings"), bundle: bundle, localization: lproj,
                        knownRegular: entry.type == .regular, into: &record)
        }
        return primary
    }

    private func readStrings(_ path: FilePath, bundle: FilePath, localization: FileName, knownRegular: Bool = false, into record: inout BundleRecord) {
        // The file exists, so rule 12 picks it even when it turns out unreadable.
        record.infoPlistStrings[localization] = [:]
        guard let (bytes, status) = readFile(bundle.appending(path), limit: settings.stringsFileLimit, label: path.string,
                                              knownRegular: knownRegular, into: &record) else { return }
        record.stamps.append(FileStamp(path: path, changeTime: status.changeTime, size: status.size, inode: status.inode))
        do {
            let table = try StringsFileReader.read(bytes)
            record.infoPlistStrings[localization] = table.entries
            // A well-formed file in a legacy encoding is read whole: a warning. A repaired one (a
            // missing `;`) may not say what its author meant: an error.
            for problem in table.problems {
                if problem.isWarning { record.warnings.append("\(path): \(problem)") } else { record.errors.append("\(path): \(problem)") }
            }
        } catch {
            record.errors.append("\(path): \(error)")
        }
    }

    // MARK: Executable

    private func findExecutable(bundle: FilePath, layout: BundleLayout, topEntries: [DirectoryEntry], into record: inout BundleRecord) {
        guard let text = record.infoDictionary.executable, !text.isEmpty else { return }
        guard !text.contains("/"), text != ".", text != ".." else {
            record.errors.append("executable name \"\(text)\" is not a file name")
            return
        }
        let name = FileName(text)
        for directory in layout.executableDirectories {
            // The listing says whether it is there; only a symlink needs following to see what it is.
            let entries = directory.isEmpty ? topEntries : root.list(bundle.appending(directory), recorder: recorder)?.entries
            guard let entry = entries?.first(where: { $0.name == name }) else { continue }
            let relative = directory.appending(name)
            if entry.type == .regular || (entry.type == .symlink && root.status(bundle.appending(relative))?.type == .regular) {
                record.executable = record.key.appending(relative)
                return
            }
        }
        let places = layout.executableDirectories.map { $0.isEmpty ? "the bundle's top" : $0.string + "/" }.joined(separator: " or ")
        record.errors.append("executable \"\(name)\" is not in \(places)")
    }
}
