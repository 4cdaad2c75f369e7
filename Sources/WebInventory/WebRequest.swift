import BundleModel

/// A page request's target read as text: its path and its query's fields, percent-decoded.
/// Pure: nothing here names a file; paths in a query are looked up in the catalogue only.
struct WebRequest: Sendable {
    var path: String
    var fields: [(name: String, value: String)]

    /// nil for a target whose escapes are not valid UTF-8 (answered 400).
    init?(target: String) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard let path = Self.decoded(parts[0], plusIsSpace: false) else { return nil }
        self.path = path
        fields = []
        guard parts.count == 2 else { return }
        for pair in parts[1].split(separator: "&") {
            let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decoded(halves[0], plusIsSpace: true),
                  let value = halves.count == 2 ? Self.decoded(halves[1], plusIsSpace: true) : ""
            else { return nil }
            fields.append((name, value))
        }
    }

    /// The first field of that name; empty values count as absent (an empty form field).
    subscript(_ name: String) -> String? {
        fields.first { $0.name == name }.map(\.value).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `%XX` decoded (and `+` as a space in a query, as forms send it); nil for a bad escape, NUL,
    /// or bytes that are not UTF-8.
    static func decoded(_ raw: Substring, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        var iterator = raw.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace: bytes.append(UInt8(ascii: " "))
            default: bytes.append(byte)
            }
        }
        guard !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// A query value as it goes into a link: everything but unreserved characters escaped.
    static func escaped(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 15)])
            }
        }
        return out
    }
}

/// `Accept-Language` (RFC 9110 12.5.4) as the languages BUNDLES.md section 3 chooses with: by
/// weight, highest first, the header's order among equals; `*`, `q=0` and malformed entries are
/// left out (a header is a hint, never an error).
enum AcceptLanguage {
    static func languages(_ header: String?) -> [LanguageTag] {
        guard let header else { return [] }
        var weighted: [(tag: LanguageTag, weight: Double, order: Int)] = []
        for (order, item) in header.split(separator: ",").prefix(32).enumerated() {
            let parts = item.split(separator: ";")
            let name = parts[0].trimmingCharacters(in: " \t")
            var weight = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.trimmingCharacters(in: " \t").split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0] == "q" || pair[0] == "Q" { weight = Double(pair[1]) ?? 0 }
            }
            guard weight > 0, name != "*", let tag = LanguageTag(name), !weighted.contains(where: { $0.tag == tag }) else { continue }
            weighted.append((tag, weight, order))
        }
        return weighted.sorted { $0.weight != $1.weight ? $0.weight > $1.weight : $0.order < $1.order }.map(\.tag)
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
