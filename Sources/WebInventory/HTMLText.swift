/// Text escaped for HTML by its UTF-8 bytes: the five characters Mustache's `{{…}}` escapes.
/// Mustache's own escaping looks up every Character in a dictionary; a fleet page of 200 rows
/// spent a tenth of its time there (issue 40). Values escaped here go in `{{{…}}}` (the search rows),
/// or into markup made on the server (the reports' bar chart).
enum HTMLText {
    static func escaped(_ text: String) -> String {
        var text = text
        return text.withUTF8 { utf8 in
            guard utf8.contains(where: isSpecial) else { return String(decoding: utf8, as: UTF8.self) }
            var out: [UInt8] = []
            out.reserveCapacity(utf8.count + 16)
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "<"): out += "&lt;".utf8
                case UInt8(ascii: ">"): out += "&gt;".utf8
                case UInt8(ascii: "&"): out += "&amp;".utf8
                case UInt8(ascii: "\""): out += "&quot;".utf8
                case UInt8(ascii: "'"): out += "&#39;".utf8
                default: out.append(byte)
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    private static func isSpecial(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }
}
