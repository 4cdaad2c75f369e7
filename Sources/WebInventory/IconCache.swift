import BundleModel
import CompactStorage
import IconImages
import Synchronization
import SymbolServer
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Icons as PNG at the sizes the pages draw, converted once from the file a catalogue record
/// names (rule 21) and kept within a byte budget, least recently used out first. A key holds the
/// icon file's size and modification time, so a changed icon is converted again.
final class IconCache: Sendable {
    struct Key: Hashable {
        var icon: FilePath
        var side: Int
        var size: Int64
        var modified: Int64
    }

    struct Icon {
        var png: [UInt8]
        var etag: String
    }

    /// The sides the pages use (results 32, a bundle page 128) and twice them for dense screens.
    static let sides: Set<Int> = [32, 64, 128, 256]

    private let cache: Mutex<BoundedCache<Key, Icon>>

    init(budget: Int) {
        cache = Mutex(BoundedCache(limit: budget, keeping: budget * 3 / 4))
    }

    /// The icon of `record` at `side`, converted if not kept; nil when the record has none on
    /// disk, or it is not inside the bundle, or it could not be read or converted.
    func icon(of record: BundleRecord, side: Int) -> Icon? {
        // Only an icon inside the bundle on disk, never through a link at its last component:
        // the record's path was checked when it was indexed, not whatever was put there since.
        guard let path = record.icon, record.archive == nil, path.relative(to: record.key) != nil,
              let status = try? FileStatus.of(path), status.type == .regular
        else { return nil }
        let key = Key(icon: path, side: side, size: status.size, modified: status.modificationTime)
        if let kept = cache.withLock({ $0.value(for: key) }) { return kept }
        guard let descriptor = try? Descriptor.open(path, flags: Descriptor.probeRead | O_NOFOLLOW),
              let png = try? IconConverter.png(from: descriptor),
              let image = try? PNGCodec.decode(png),
              let scaled = try? PNGCodec.encode(IconScaling.square(image, side: side))
        else { return nil }
        let icon = Icon(png: scaled, etag: "\"" + Self.digest(scaled) + "\"")
        _ = cache.withLock { $0.store(icon, for: key, weight: scaled.count + 64) }
        return icon
    }

    /// FNV-1a, 64 bits, as hex: enough to tell two icons apart for `If-None-Match`.
    static func digest(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

extension WebInventory {
    /// `/icons/SIDE.png?path=KEY`: the icon of the catalogued bundle at KEY.
    func icon(_ name: String, web: WebRequest, request: PageRequest) throws -> PageAnswer {
        let languages = defaultLanguages
        guard name.hasSuffix(".png"), let side = Int(name.dropLast(4)), IconCache.sides.contains(side) else {
            return notFound(web, languages: languages, "Icons are served at \(IconCache.sides.sorted().map(String.init).joined(separator: ", ")) pixels.")
        }
        guard let bundle = try catalogued(web), let icon = icons.icon(of: bundle.record, side: side) else {
            return notFound(web, languages: languages, "No catalogued bundle with a readable icon has this path.")
        }
        // Revalidated after five minutes: an application's update may change its icon.
        let headers = [("ETag", icon.etag), ("Cache-Control", "max-age=300")] + Self.commonHeaders
        if let match = request.header("If-None-Match"), match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: " ") == icon.etag }) {
            return PageAnswer(status: 304, headers: headers, body: [])
        }
        return PageAnswer(status: 200, headers: [("Content-Type", "image/png")] + headers, body: icon.png)
    }
}
