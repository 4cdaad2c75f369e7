public import SystemCalls

/// Buffers as a fanotify group reporting directory handles and names (FAN_REPORT_DFID_NAME) fills
/// them (linux/fanotify.h): each event a 24-byte header, then its info records, each padded to 4
/// bytes. Seeds for the parser's fuzzing, in the test suite and in `bundlefs-fuzz`.
public enum FanotifySeeds {
    static let dfidName: UInt8 = 2, oldDFIDName: UInt8 = 10, newDFIDName: UInt8 = 12

    /// A file created in a directory (8-byte handle, ext4's), a directory renamed from one
    /// directory to another (12-byte handles), an event about a directory itself ("."), and a
    /// queue overflow with no record.
    public static var buffer: [UInt8] {
        let a: [UInt8] = [1, 0, 0, 0, 7, 0, 0, 0], b: [UInt8] = [2, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0]
        return event(mask: .create, records: [record(dfidName, fsid: 0x1234_5678_9ABC_DEF0, handle: a, type: 1, name: "file")])
            + event(mask: [.rename, .onDirectory], records: [record(oldDFIDName, fsid: 5, handle: b, type: 0x81, name: "from"),
                                                            record(newDFIDName, fsid: 5, handle: a, type: 1, name: "to")])
            + event(mask: .modify, records: [record(dfidName, fsid: 5, handle: a, type: 1, name: ".")])
            + event(mask: .queueOverflow, records: [])
    }

    /// One event: event_len, vers 3, reserved, metadata_len 24, mask, fd FAN_NOFD, pid.
    public static func event(mask: FanotifyMask, records: [[UInt8]]) -> [UInt8] {
        let body = records.flatMap { $0 }
        return little(UInt32(24 + body.count)) + [3, 0] + little(UInt16(24)) + little(mask.rawValue) + little(UInt32(bitPattern: -1)) + little(UInt32(42)) + body
    }

    /// One handle record: info_type, pad, len; fsid; handle_bytes, handle_type, the handle; the
    /// name and its NUL; zeros to a multiple of 4.
    public static func record(_ type: UInt8, fsid: UInt64, handle: [UInt8], type handleType: Int32, name: String) -> [UInt8] {
        var bytes = little(UInt32(truncatingIfNeeded: fsid)) + little(UInt32(truncatingIfNeeded: fsid >> 32))
            + little(UInt32(handle.count)) + little(UInt32(bitPattern: handleType)) + handle + Array(name.utf8) + [0]
        while (bytes.count + 4) % 4 != 0 { bytes.append(0) }
        return [type, 0] + little(UInt16(bytes.count + 4)) + bytes
    }

    private static func little<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
}
