package import BundleModel
import Codecs
package import SystemCalls

/// Stamps as lines of `ctime size inode path`, the path last with `\` and newlines escaped:
/// compact, and fast to read back for every bundle on a re-index.
package enum StampCoding {
    package static func encode(_ stamps: [FileStamp]) -> String {
        var writer = ByteWriter(capacity: 64 * stamps.count)
        for (index, stamp) in stamps.enumerated() {
            if index > 0 { writer.append(UInt8(ascii: "\n")) }
            writer.append(stamp.changeTime)
            writer.append(UInt8(ascii: " "))
            writer.append(stamp.size)
            writer.append(UInt8(ascii: " "))
            writer.append(stamp.inode)
            writer.append(UInt8(ascii: " "))
            writer.append(raw: escape(stamp.path))
        }
        return writer.text
    }

    package static func encode(_ stamp: FileStamp?) -> String? { stamp.map { encode([$0]) } }

    /// Read byte by byte (a space or newline followed by a combining mark is one Character), and
    /// without splitting into substrings: every catalogued bundle's stamps are read back.
    package static func decode(_ text: String?) -> [FileStamp] {
        guard var text, !text.isEmpty else { return [] }
        return text.withUTF8 { bytes in
            var stamps: [FileStamp] = []
            var index = 0
            /// A decimal number and the space after it: sign and magnitude.
            func number() -> (negative: Bool, magnitude: UInt64)? {
                var negative = false
                if index < bytes.count, bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
                var value: UInt64 = 0
                var digits = 0
                while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                    let (scaled, overflow) = value.multipliedReportingOverflow(by: 10)
                    let (sum, carry) = scaled.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
                    guard !overflow, !carry else { return nil }
                    value = sum
                    digits += 1
                    index += 1
                }
                guard digits > 0, index < bytes.count, bytes[index] == UInt8(ascii: " ") else { return nil }
                index += 1
                return (negative, value)
            }
            func signed(_ number: (negative: Bool, magnitude: UInt64)?) -> Int64? {
                guard let number, number.magnitude <= UInt64(Int64.max) else { return nil }
                return number.negative ? -Int64(number.magnitude) : Int64(number.magnitude)
            }
            while index < bytes.count {
                let lineEnd = bytes[index...].firstIndex(of: newline) ?? bytes.count
                defer { index = lineEnd + 1 }
                guard let changeTime = signed(number()), let size = signed(number()), let inode = number(), !inode.negative,
                      index <= lineEnd
                else { continue }
                let path = unescape(Substring(decoding: UnsafeBufferPointer(rebasing: bytes[index..<lineEnd]), as: UTF8.self))
                stamps.append(FileStamp(path: path, changeTime: changeTime, size: size, inode: inode.magnitude))
            }
            return stamps
        }
    }

    /// `\` and newline escaped byte by byte (a `\` followed by a combining mark is one
    /// Character, but still the byte to escape).
    package static func escape(_ path: FilePath) -> String {
        let utf8 = path.string.utf8
        guard utf8.contains(where: { $0 == backslash || $0 == newline }) else { return path.string }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count + 8)
        for byte in utf8 {
            if byte == backslash { out += [backslash, backslash] } else if byte == newline { out += [backslash, UInt8(ascii: "n")] } else { out.append(byte) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    package static func unescape(_ text: Substring) -> FilePath {
        guard text.utf8.contains(backslash) else { return FilePath(String(text)) }
        var out: [UInt8] = []
        var escaping = false
        for byte in text.utf8 {
            if escaping {
                out.append(byte == UInt8(ascii: "n") ? newline : byte)
                escaping = false
            } else if byte == backslash {
                escaping = true
            } else {
                out.append(byte)
            }
        }
        return FilePath(String(decoding: out, as: UTF8.self))
    }
}

private let backslash = UInt8(ascii: "\\")
private let newline = UInt8(ascii: "\n")

/// CFBundleDocumentTypes as JSON. The icon a document type names is kept relative to its bundle
/// (`iconInBundle`), so that a bundle renamed with its subtree (one UPDATE of paths) still names
/// it; rows written before kept it absolute (`iconPath`), which is still read.
package enum DocumentTypeCoding {
    package static func encode(_ types: [DocumentType], bundle: FilePath) -> String {
        JSONValue.array(types.map { type in
            var members: [(String, JSONValue)] = [
                ("name", .optional(type.name)), ("role", .optional(type.role)), ("extensions", .strings(type.extensions)),
                ("contentTypes", .strings(type.contentTypes)), ("isPackage", .bool(type.isPackage)), ("iconFile", .optional(type.iconFile)),
            ]
            if let icon = type.iconPath {
                if let relative = icon.relative(to: bundle), !relative.isEmpty {
                    members.append(("iconInBundle", .string(relative.string)))
                } else {
                    members.append(("iconPath", .string(icon.string)))
                }
            }
            return .object(members)
        }).serialized()
    }

    package static func decode(_ json: String, bundle: FilePath) -> [DocumentType] {
        guard let value = try? JSONValue.parse(json), let entries = value.arrayValue else { return [] }
        return entries.map { entry in
            DocumentType(
                name: entry["name"]?.stringValue, role: entry["role"]?.stringValue,
                extensions: entry["extensions"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                contentTypes: entry["contentTypes"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                isPackage: entry["isPackage"] == .bool(true),
                iconFile: entry["iconFile"]?.stringValue,
                iconPath: entry["iconInBundle"]?.stringValue.map { bundle.appending(FilePath($0)) } ?? entry["iconPath"]?.stringValue.map { FilePath($0) })
        }
    }
}

package enum TypeDeclarationCoding {
    package static func encode(_ declarations: [TypeDeclaration]) -> String {
        JSONValue.array(declarations.map { declaration in
            var members: [(String, JSONValue)] = [
                ("identifier", .string(declaration.identifier)), ("conformsTo", .strings(declaration.conformsTo)),
                ("extensions", .strings(declaration.extensions)), ("exported", .bool(declaration.exported)),
            ]
            // Added for rule 28; absent in rows written before, and when empty.
            if !declaration.mimeTypes.isEmpty { members.append(("mimeTypes", .strings(declaration.mimeTypes))) }
            if let description = declaration.description { members.append(("description", .string(description))) }
            return .object(members)
        }).serialized()
    }

    package static func decode(_ json: String) -> [TypeDeclaration] {
        guard let value = try? JSONValue.parse(json), let entries = value.arrayValue else { return [] }
        return entries.compactMap { entry in
            guard let identifier = entry["identifier"]?.stringValue else { return nil }
            return TypeDeclaration(
                identifier: identifier, conformsTo: entry["conformsTo"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                extensions: entry["extensions"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                mimeTypes: entry["mimeTypes"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                description: entry["description"]?.stringValue,
                exported: entry["exported"] == .bool(true))
        }
    }
}


/// A Time Machine backup (rule 34) as the JSON object of the `backup` column and of the record
/// PostgreSQL keeps: the names `TimeMachineBackup.json()` gives people, with `lastSnapshot` kept
/// as the plist's own seconds since 2001 so that it comes back exact.
package enum BackupCoding {
    package static func encode(_ backup: TimeMachineBackup) -> String {
        func number(_ value: UInt64?) -> JSONValue { value.map { $0 <= UInt64(Int64.max) ? .integer(Int64($0)) : .unsignedInteger($0) } ?? .null }
        return JSONValue.object([
            ("model", .optional(backup.model)), ("hostUUID", .optional(backup.hostUUID)), ("machineAddress", .optional(backup.machineAddress)),
            ("snapshots", .integer(Int64(backup.snapshots))), ("lastSnapshot", backup.lastSnapshot.map(JSONValue.number) ?? .null),
            ("size", number(backup.size)), ("bandSize", number(backup.bandSize)),
            ("bands", .integer(Int64(backup.bands))), ("sizeOnDisk", number(backup.sizeOnDisk)),
        ]).serialized()
    }

    package static func encode(_ backup: TimeMachineBackup?) -> String? { backup.map(encode) }

    /// Nil for text that is not a JSON object; members of the wrong type are left out.
    package static func decode(_ text: String?) -> TimeMachineBackup? {
        guard let text, case let .object(members)? = try? JSONValue.parse(text) else { return nil }
        let fields = Dictionary(members, uniquingKeysWith: { $1 })
        func count(_ key: String) -> UInt64? {
            switch fields[key] {
            case let .integer(value)?: value >= 0 ? UInt64(value) : nil
            case let .unsignedInteger(value)?: value
            default: nil
            }
        }
        var backup = TimeMachineBackup()
        backup.model = fields["model"]?.stringValue
        backup.hostUUID = fields["hostUUID"]?.stringValue
        backup.machineAddress = fields["machineAddress"]?.stringValue
        backup.snapshots = Int(clamping: count("snapshots") ?? 0)
        switch fields["lastSnapshot"] {
        case let .number(seconds)?: backup.lastSnapshot = seconds
        case let .integer(seconds)?: backup.lastSnapshot = Double(seconds)
        default: backup.lastSnapshot = nil
        }
        backup.size = count("size")
        backup.bandSize = count("bandSize")
        backup.bands = Int(clamping: count("bands") ?? 0)
        backup.sizeOnDisk = count("sizeOnDisk") ?? 0
        return backup
    }
}
