import Catalogue
import NIOHTTP1

/// The headers elfutils' debuginfod sends with a file, which its clients read: the client stamps
/// its cached copy with `Last-Modified` (without it, 1969, and its cache cleaner deletes the copy
/// on its next pass) and may check the transfer against `X-Debuginfod-Size`.
enum DebuginfodHeaders {
    static func add(to headers: inout HTTPHeaders, file: SymbolFile) {
        headers.add(name: "X-Debuginfod-Size", value: String(file.status.size))
        // debuginfod names the file it opened, by its path on the server.
        headers.add(name: "X-Debuginfod-File", value: fieldValue(file.path.bytes))
        headers.add(name: "Last-Modified", value: HTTPDate.format(secondsSinceEpoch: file.status.modificationTime / 1_000_000_000))
        headers.add(name: "Cache-Control", value: "public")
    }

    /// `X-Debuginfod-Maxsize`: the largest file the client wants, when it says one (digits, more
    /// than 0; anything else is no limit, as elfutils reads it).
    static func maximumSize(_ headers: HTTPHeaders) -> Int64? {
        guard let text = headers.first(name: "X-Debuginfod-Maxsize"), !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        // More digits than an Int64 holds: larger than any file.
        guard let value = Int64(text) else { return nil }
        return value > 0 ? value : nil
    }

    /// A file name as a header value: bytes a header may not carry (controls, and beyond ASCII,
    /// which a name may hold) and `%` percent-encoded, so that no name can end the header.
    static func fieldValue(_ bytes: [UInt8]) -> String {
        var text = ""
        for byte in bytes {
            if (0x20...0x7E).contains(byte), byte != UInt8(ascii: "%") {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                text += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
            }
        }
        return text
    }
}
