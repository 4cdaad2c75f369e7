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
        case let .real(number): out += "<*R\(formatReal(number))>"
        case let .bool(flag): out += flag ? "<*BY>" : "<*BN>"
        case let .date(seconds): out += "<*D\(PlistDate.formatISO8601(seconds))>"
        case let .uid(number): out += "<*I\(number)>"
        case let .data(bytes):
            out += "<" + bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() + ">"
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
                    let hex = String(scalar.value, radix: 16)
                    out += "\\U" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    // MARK: Binary

    public static func binary(_ value: PlistValue) -> [UInt8] {
        var objects: [[UInt8]] = []
        var references: [[Int]] = []
        func add(_ value: PlistValue) -> Int {
            let number = objects.count
            objects.append([])
            references.append([])
            switch value {
            case let .array(values):
                let children = values.map(add)
                objects[number] = header(0xA, children.count)
                references[number] = children
            case let .dictionary(entries):
                let keys = entries.keys.sorted()
                let keyObjects = keys.map { add(.string($0)) }
                let valueObjects = keys.map { add(entries[$0]!) }
                objects[number] = header(0xD, keys.count)
                references[number] = keyObjects + valueObjects
            default:
                objects[number] = encodeScalar(value)
            }
            return number
        }
        _ = add(value)
        let referenceSize = objects.count < 256 ? 1 : objects.count < 65536 ? 2 : 4
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for (number, object) in objects.enumerated() {
            offsets.append(out.count)
            out += object
            for reference in references[number] { out += bigEndian(UInt64(reference), size: referenceSize) }
        }
        let tableOffset = out.count
        let offsetSize = tableOffset < 256 ? 1 : tableOffset < 65536 ? 2 : tableOffset < 1 << 32 ? 4 : 8
        for offset in offsets { out += bigEndian(UInt64(offset), size: offsetSize) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        out += bigEndian(UInt64(objects.count), size: 8)
        out += bigEndian(0, size: 8)
        out += bigEndian(UInt64(tableOffset), size: 8)
        return out
    }

    private static func encodeScalar(_ value: PlistValue) -> [UInt8] {
        switch value {
        case let .bool(flag): return [flag ? 0x09 : 0x08]
        case let .integer(number):
            if number >= 0 && number < 256 { return [0x10, UInt8(number)] }
            if number >= 0 && number < 65536 { return [0x11] + bigEndian(UInt64(number), size: 2) }
            if number >= 0 && number < 1 << 32 { return [0x12] + bigEndian(UInt64(number), size: 4) }
            return [0x13] + bigEndian(UInt64(bitPattern: number), size: 8)
        case let .real(number): return [0x23] + bigEndian(number.bitPattern, size: 8)
        case let .date(seconds): return [0x33] + bigEndian(seconds.bitPattern, size: 8)
        case let .data(bytes): return header(0x4, bytes.count) + bytes
        case let .uid(number): return [0x87] + bigEndian(number, size: 8)
        case let .string(text):
            if text.utf8.allSatisfy({ $0 < 0x80 }) { return header(0x5, text.utf8.count) + Array(text.utf8) }
            let units = Array(text.utf16)
            return header(0x6, units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case .array, .dictionary:
            preconditionFailure("collections are encoded by binary(_:)")
        }
    }

    private static func header(_ kind: UInt8, _ count: Int) -> [UInt8] {
        if count < 15 { return [kind << 4 | UInt8(count)] }
        return [kind << 4 | 0x0F] + encodeScalar(.integer(Int64(count)))
    }

    private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
    }
}
