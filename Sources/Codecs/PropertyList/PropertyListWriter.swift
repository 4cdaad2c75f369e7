/// Writes property lists: XML (for people and for the view's effective Info.plist), binary
/// (`bplist00`, for fixtures and round trips) and OpenStep text. Dictionary keys are written in
/// sorted order, so the output is deterministic.
public enum PropertyListWriter {
    // MARK: XML

    public static func xml(_ value: PlistValue) -> [UInt8] {
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """
        writeXML(value, indent: 0, into: &out)
        out += "</plist>\n"
        return Array(out.utf8)
    }

    private static func writeXML(_ value: PlistValue, indent: Int, into out: inout String) {
        let pad = String(repeating: "\t", count: indent)
        switch value {
        case let .string(text): out += "\(pad)<string>\(escapeXML(text))</string>\n"
        case let .integer(number): out += "\(pad)<integer>\(number)</integer>\n"
        case let .unsignedInteger(number): out += "\(pad)<integer>\(number)</integer>\n"
        case let .real(number): out += "\(pad)<real>\(formatReal(number))</real>\n"
        case let .bool(flag): out += "\(pad)<\(flag ? "true" : "false")/>\n"
        case let .date(seconds): out += "\(pad)<date>\(PlistDate.formatISO8601(seconds))</date>\n"
        case let .data(bytes): out += "\(pad)<data>\(Base64.encode(bytes))</data>\n"
        case let .uid(number): out += "\(pad)<dict>\n\(pad)\t<key>CF$UID</key>\n\(pad)\t<integer>\(number)</integer>\n\(pad)</dict>\n"
        case let .array(values):
            if values.isEmpty { out += "\(pad)<array/>\n"; return }
            out += "\(pad)<array>\n"
            for element in values { writeXML(element, indent: indent + 1, into: &out) }
            out += "\(pad)</array>\n"
        case let .dictionary(entries):
            if entries.isEmpty { out += "\(pad)<dict/>\n"; return }
            out += "\(pad)<dict>\n"
            for key in entries.keys.sorted() {
                out += "\(pad)\t<key>\(escapeXML(key))</key>\n"
                writeXML(entries[key]!, indent: indent + 1, into: &out)
            }
            out += "\(pad)</dict>\n"
        }
    }

    static func escapeXML(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            default:
                // XML 1.0 cannot carry most control characters, even as references; keep them visible.
                if scalar.value < 0x20 && scalar != "\n" && scalar != "\t" && scalar != "\r" {
                    out.unicodeScalars.append("\u{FFFD}")
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    static func formatReal(_ number: Double) -> String {
        if number.isNaN { return "nan" }
        if number.isInfinite { return number < 0 ? "-inf" : "+inf" }
        return "\(number)"
    }

    // MARK: OpenStep text

    public static func openStep(_ value: PlistValue) -> [UInt8] {
        var out = ""
        writeOpenStep(value, indent: 0, into: &out)
        out += "\n"
        return Array(out.utf8)
    }

    private static func writeOpenStep(_ value: PlistValue, indent: Int, into out: inout String) {
        let pad = String(repeating: "    ", count: indent + 1)
        let closePad = String(repeating: "    ", count: indent)
        switch value {
        case let .string(text): out += quoteOpenStep(text)
        case let .integer(number): out += "<*I\(number)>"
        case let .unsignedInteger(number): out += "<*I\(number)>"
        case let .real(number): out += "<*R\(formatReal(number))>"
        case let .bool(flag): out += flag ? "<*BY>" : "<*BN>"
        case let .date(seconds): out += "<*D\(PlistDate.formatISO8601(seconds))>"
        case let .uid(number): out += "<*I\(number)>"
        case let .data(bytes):
            out += "<" + Hex.string(bytes) + ">"
        case let .array(values):
            out += "(\n"
            for (offset, element) in values.enumerated() {
                out += pad
                writeOpenStep(element, indent: indent + 1, into: &out)
                out += offset + 1 < values.count ? ",\n" : "\n"
            }
            out += closePad + ")"
        case let .dictionary(entries):
            out += "{\n"
            for key in entries.keys.sorted() {
                out += pad + quoteOpenStep(key) + " = "
                writeOpenStep(entries[key]!, indent: indent + 1, into: &out)
                out += ";\n"
            }
            out += closePad + "}"
        }
    }

    static func quoteOpenStep(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 {
                    out += "\\U00" + Hex.string([UInt8(scalar.value)])
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    // MARK: Binary

    /// `bplist00`, written in one buffer: the catalogue stores every Info dictionary this way, so
    /// no object gets an allocation of its own. Objects are numbered in pre-order (a collection,
    /// then its keys, then its values, each subtree whole), so a collection's references are known
    /// from the sizes of its children's subtrees before they are written.
    public static func binary(_ value: PlistValue) -> [UInt8] {
        var plan = BinaryPlan()
        let total = plan.count(value)
        let referenceSize = total < 256 ? 1 : total < 65536 ? 2 : 4
        var writer = BinaryWriter(plan: plan, referenceSize: referenceSize, total: total)
        writer.write(value)
        return writer.finish()
    }
}

/// The first pass over a value: how many objects each subtree holds, and each dictionary's keys
/// in the order they are written.
private struct BinaryPlan {
    /// By object number (pre-order).
    var sizes: [Int] = []
    /// By dictionary, in pre-order.
    var sortedKeys: [[String]] = []

    mutating func count(_ value: PlistValue) -> Int {
        let number = sizes.count
        sizes.append(1)
        var size = 1
        switch value {
        case let .array(values):
            for element in values { size += count(element) }
        case let .dictionary(entries):
            let keys = entries.keys.sorted()
            sortedKeys.append(keys)
            size += keys.count
            sizes += [Int](repeating: 1, count: keys.count)
            for key in keys { size += count(entries[key]!) }
        default:
            break
        }
        sizes[number] = size
        return size
    }
}

private struct BinaryWriter {
    let plan: BinaryPlan
    let referenceSize: Int
    var out: [UInt8] = []
    var offsets: [Int]
    var nextNumber = 0
    var nextDictionary = 0

    init(plan: BinaryPlan, referenceSize: Int, total: Int) {
        self.plan = plan
        self.referenceSize = referenceSize
        offsets = [Int](repeating: 0, count: total)
        out.reserveCapacity(64 + total * 16)
        out += Array("bplist00".utf8)
    }

    mutating func write(_ value: PlistValue) {
        let number = nextNumber
        nextNumber += 1
        offsets[number] = out.count
        switch value {
        case let .array(values):
            header(0xA, values.count)
            var child = number + 1
            for _ in values {
                reference(child)
                child += plan.sizes[child]
            }
            for element in values { write(element) }
        case let .dictionary(entries):
            let keys = plan.sortedKeys[nextDictionary]
            nextDictionary += 1
            header(0xD, keys.count)
            for index in keys.indices { reference(number + 1 + index) }
            var child = number + 1 + keys.count
            for _ in keys {
                reference(child)
                child += plan.sizes[child]
            }
            for key in keys { write(.string(key)) }
            for key in keys { write(entries[key]!) }
        default:
            scalar(value)
        }
    }

    mutating func scalar(_ value: PlistValue) {
        switch value {
        case let .bool(flag): out.append(flag ? 0x09 : 0x08)
        case let .integer(number): integer(number)
        case let .unsignedInteger(number):
            // As CoreFoundation writes it: a 16-byte integer whose high half is zero.
            out.append(0x14)
            bigEndian(0, size: 8)
            bigEndian(number, size: 8)
        case let .real(number):
            out.append(0x23)
            bigEndian(number.bitPattern, size: 8)
        case let .date(seconds):
            out.append(0x33)
            bigEndian(seconds.bitPattern, size: 8)
        case let .data(bytes):
            header(0x4, bytes.count)
            out += bytes
        case let .uid(number):
            out.append(0x87)
            bigEndian(number, size: 8)
        case let .string(text):
            if text.utf8.allSatisfy({ $0 < 0x80 }) {
                header(0x5, text.utf8.count)
                out += text.utf8
            } else {
                header(0x6, text.utf16.count)
                for unit in text.utf16 { bigEndian(UInt64(unit), size: 2) }
            }
        case .array, .dictionary:
            preconditionFailure("collections are written by write(_:)")
        }
    }

    mutating func integer(_ number: Int64) {
        if number >= 0 && number < 256 {
            out += [0x10, UInt8(number)]
        } else if number >= 0 && number < 65536 {
            out.append(0x11)
            bigEndian(UInt64(number), size: 2)
        } else if number >= 0 && number < 1 << 32 {
            out.append(0x12)
            bigEndian(UInt64(number), size: 4)
        } else {
            out.append(0x13)
            bigEndian(UInt64(bitPattern: number), size: 8)
        }
    }

    mutating func header(_ kind: UInt8, _ count: Int) {
        if count < 15 {
            out.append(kind << 4 | UInt8(count))
        } else {
            out.append(kind << 4 | 0x0F)
            integer(Int64(count))
        }
    }

    mutating func reference(_ number: Int) { bigEndian(UInt64(number), size: referenceSize) }

    mutating func bigEndian(_ value: UInt64, size: Int) {
        for index in 0..<size { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - index)))) }
    }

    mutating func finish() -> [UInt8] {
        let tableOffset = out.count
        let offsetSize = tableOffset < 256 ? 1 : tableOffset < 65536 ? 2 : tableOffset < 1 << 32 ? 4 : 8
        for offset in offsets { bigEndian(UInt64(offset), size: offsetSize) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        bigEndian(UInt64(offsets.count), size: 8)
        bigEndian(0, size: 8)
        bigEndian(UInt64(tableOffset), size: 8)
        return out
    }
}
