/// A request's `Range` header against a file's size (RFC 9110 section 14): one range of bytes is
/// served as asked; anything else this server may ignore is answered whole (several ranges, a
/// syntax it does not know), and a range that starts past the end is 416.
public enum ByteRange: Equatable, Sendable {
    case whole
    case part(ClosedRange<Int64>)
    case unsatisfiable

    public init(header: String?, size: Int64) {
        guard let header else { self = .whole; return }
        let text = header.trimmingCharacters(in: " \t")
        guard text.lowercased().hasPrefix("bytes="), !text.contains(",") else { self = .whole; return }
        let spec = text.dropFirst("bytes=".count).trimmingCharacters(in: " \t")
        guard let dash = spec.firstIndex(of: "-") else { self = .whole; return }
        let first = spec[..<dash], last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            // The last N bytes; a suffix longer than the file is all of it.
            guard let count = Self.number(last) else { self = .whole; return }
            guard count > 0, size > 0 else { self = .unsatisfiable; return }
            self = .part(max(0, size - count)...(size - 1))
            return
        }
        guard let start = Self.number(first) else { self = .whole; return }
        let end: Int64
        if last.isEmpty {
            end = size - 1
        } else {
            guard let value = Self.number(last), value >= start else { self = .whole; return }
            end = min(value, size - 1)
        }
        guard start < size else { self = .unsatisfiable; return }
        self = .part(start...end)
    }

    /// Decimal digits only. A number too large for an Int64 is still a number (RFC 9110 puts no
    /// bound on them): it saturates, so that a last byte past any file means "to the end" and a
    /// first byte past any file is unsatisfiable.
    private static func number(_ text: some StringProtocol) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard (0x30...0x39).contains(byte) else { return nil }
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(Int64(byte - 0x30))
            value = overflowTimes || overflowSum ? .max : sum
        }
        return value
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
