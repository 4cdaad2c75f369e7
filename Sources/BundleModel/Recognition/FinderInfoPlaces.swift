public import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// How an item's extended attributes are read: through its open descriptor, or by path (never
/// following a final symlink).
public enum AttributeAccess {
    case descriptor(Descriptor)
    case path(FilePath)

    func names() throws -> [String] {
        switch self {
        case let .descriptor(descriptor): try ExtendedAttributes.names(of: descriptor)
        case let .path(path): try ExtendedAttributes.names(atPath: path)
        }
    }

    func value(_ name: String) throws -> [UInt8]? {
        switch self {
        case let .descriptor(descriptor): try ExtendedAttributes.value(name, of: descriptor)
        case let .path(path): try ExtendedAttributes.value(name, atPath: path)
        }
    }
}

/// What looking for an item's Finder info found, and the places passed over on the way.
public struct FinderInfoLookup: Sendable {
    public enum PassedOver: Sendable {
        case malformedAttribute(FinderInfoSource, byteCount: Int)
        case malformedSidecar
        case unreadableSidecar(String)
    }

    public var found: FinderInfo?
    public var passedOver: [PassedOver] = []
}

extension FinderInfo {
    /// Rule 4, the one place it is written: the item's extended attributes in the order of
    /// `FinderInfoSource.attributeSources` (`attributes` nil for an item that has none to ask,
    /// such as a symlink), then its AppleDouble file `._name` (`openSidecar` opens it with the
    /// flags given; nil when there is none). The first well-formed Finder info wins; a short or
    /// malformed blob carries no flags and the next place is looked at.
    public static func lookUp(attributes: AttributeAccess?, openSidecar: ((Int32) throws -> Descriptor)?) -> FinderInfoLookup {
        var lookup = FinderInfoLookup()
        if let attributes, let names = try? attributes.names(), !names.isEmpty {
            for source in FinderInfoSource.attributeSources where names.contains(source.rawValue) {
                guard let value = (try? attributes.value(source.rawValue)) ?? nil else { continue }
                if let info = decode(attribute: value, source: source) {
                    lookup.found = info
                    return lookup
                }
                lookup.passedOver.append(.malformedAttribute(source, byteCount: value.count))
            }
        }
        guard let openSidecar else { return lookup }
        do {
            lookup.found = try readSidecar(openSidecar)
            if lookup.found == nil { lookup.passedOver.append(.malformedSidecar) }
        } catch {
            lookup.passedOver.append(.unreadableSidecar("\(error)"))
        }
        return lookup
    }

    /// Rule 4 for any item by path (a file, a folder that is not catalogued): its Finder flags,
    /// the extended attributes first (not of a symlink: Linux keeps no user attributes on links),
    /// then the AppleDouble file `sidecar` when there is one.
    public static func flags(ofItemAt path: FilePath, type: FileType, sidecar: FilePath?) -> UInt16? {
        let openSidecar = sidecar.map { sidecar in { (flags: Int32) throws -> Descriptor in try Descriptor.open(sidecar, flags: flags) } }
        return lookUp(attributes: type == .symlink ? nil : .path(path), openSidecar: openSidecar).found?.finderFlags
    }

    /// Enough of a sidecar for its entry table: writers use two to five entries.
    static let sidecarHeaderSize = 4096

    /// An AppleDouble file's Finder info, wherever its entry table puts it. A sidecar is a regular
    /// file beside the item: never a link followed (the watcher notices a sidecar's change by the
    /// entry itself), and nothing else is opened (its type is checked through O_PATH first).
    static func readSidecar(_ open: (Int32) throws -> Descriptor) throws -> FinderInfo? {
        let handle = try open(O_PATH_ONLY | O_NOFOLLOW)
        let before = try handle.status()
        guard before.type == .regular else { throw BoundedReadError.notRegularFile(path: handle.path.string, type: before.type) }
        let file = try open(Descriptor.probeRead | O_NOFOLLOW)
        let status = try file.status()
        guard status.type == .regular, status.inode == before.inode else {
            throw BoundedReadError.notRegularFile(path: file.path.string, type: status.type)
        }
        let header = try file.read(at: 0, count: sidecarHeaderSize)
        guard let offset = appleDoubleFinderInfoOffset(header: header, size: Int(status.size)) else { return nil }
        let bytes = offset + 32 <= header.count ? Array(header[offset..<(offset + 32)]) : try file.read(at: Int64(offset), count: 32)
        return FinderInfo(bytes: bytes, source: .appleDoubleSidecar)
    }
}
