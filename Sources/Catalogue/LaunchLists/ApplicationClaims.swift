import BundleModel
import Codecs

/// What an installed application claims (rule 29), packed into its row (`bundles.launch_claims`,
/// schema v16): each claim's target, rank order and role, once. The lists of `launch_lists` are
/// made from these and the row's path, identifier and version; when a row changes or goes, the
/// claims it had say which lists to mend (`LaunchLists.settle`).
///
/// A format byte (1), then per claim: target kind (`TargetKey.kinds`), the target's length and
/// bytes (LEB128, as `LaunchListCoding`), rank order, role code.
enum ApplicationClaims {
    /// A claim target as stored: its kind's code and its bytes. Compared as bytes: as Strings,
    /// NFC and NFD twins would be one target.
    struct TargetKey: Hashable {
        static let kinds = ["type", "extension", "mime", "everything", "scheme"]
        var kind: UInt8
        var value: [UInt8]

        init?(kind: String, value: String) {
            guard let code = Self.kinds.firstIndex(of: kind) else { return nil }
            self.kind = UInt8(code)
            self.value = Array(value.utf8)
        }

        init(kind: UInt8, value: [UInt8]) {
            self.kind = kind
            self.value = value
        }

        var kindName: String { Self.kinds[Int(kind)] }
        var valueText: String { String(decoding: value, as: UTF8.self) }
    }

    struct Claim: Hashable {
        var target: TargetKey
        var order: UInt8
        var role: UInt8
    }

    /// The record's claims, packed; nil when it claims nothing (not an installed application).
    static func encode(_ record: BundleRecord) -> [UInt8]? {
        guard LaunchRows.counts(record) else { return nil }
        var seen = Set<Claim>()
        var bytes: [UInt8] = [1]
        for claim in LaunchRows.claims(of: record) {
            let (kind, value) = LaunchRows.columns(claim.target)
            guard let target = TargetKey(kind: kind, value: value), let role = LaunchListCoding.roleCode(claim.role.rawValue) else { continue }
            let packed = Claim(target: target, order: UInt8(claim.rank.order), role: role)
            guard seen.insert(packed).inserted else { continue }
            bytes.append(target.kind)
            LEB128.append(UInt64(target.value.count), to: &bytes)
            bytes += target.value
            bytes.append(packed.order)
            bytes.append(role)
        }
        return bytes
    }

    /// The claims of a packed row; what cannot be read is left out (a row written by another version).
    static func decode(_ bytes: UnsafeRawBufferPointer) -> [Claim] {
        guard bytes.first == 1 else { return [] }
        var claims: [Claim] = []
        var offset = 1
        while offset < bytes.count {
            let kind = bytes[offset]
            offset += 1
            // The value, then its rank order and role code, must fit.
            guard let read = try? LEB128.read(bytes, at: &offset), Int(kind) < TargetKey.kinds.count,
                  bytes.count - offset >= 2, read <= UInt64(bytes.count - offset - 2) else { return claims }
            let length = Int(read)
            let value = Array(bytes[offset..<(offset + length)])
            offset += length
            claims.append(Claim(target: TargetKey(kind: kind, value: value), order: bytes[offset], role: bytes[offset + 1]))
            offset += 2
        }
        return claims
    }
}
