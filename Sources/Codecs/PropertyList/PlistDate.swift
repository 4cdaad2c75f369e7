/// Dates in property lists: seconds since 2001-01-01T00:00:00Z, read from and written as ISO 8601.
public enum PlistDate {
    /// Seconds between 1970-01-01 and 2001-01-01.
    static let referenceOffset: Double = 978_307_200

    /// Dates from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z, as seconds since the reference date:
    /// what every other reader (plistlib, Foundation's formatters) can represent. A date outside
    /// (biplist's `small_date.plist` says year 0) is an error, not a value.
    static let representable: ClosedRange<Double> =
        (Double(daysFromCivil(year: 1, month: 1, day: 1)) * 86400 - referenceOffset)...(Double(daysFromCivil(year: 10000, month: 1, day: 1)) * 86400 - referenceOffset - 1)

    public static func isRepresentable(_ seconds: Double) -> Bool { representable.contains(seconds) }

    /// Parses `YYYY-MM-DDTHH:MM:SSZ` (XML plists) and `YYYY-MM-DD HH:MM:SS ±HHMM` (GNUstep's `<*D...>`).
    /// Missing trailing fields default to zero; a missing zone means UTC.
    public static func parseISO8601(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<(index + digits)] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += digits
            return value
        }
        func skip(_ separators: String) -> Bool {
            guard index < bytes.count, separators.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        var negativeYear = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { negativeYear = true; index += 1 }
        guard var year = number(4) else { return nil }
        if negativeYear { year = -year }
        var month = 1, day = 1, hour = 0, minute = 0, second = 0
        var zoneOffset = 0
        if skip("-") {
            guard let value = number(2), (1...12).contains(value) else { return nil }
            month = value
            if skip("-") {
                guard let value = number(2), (1...31).contains(value) else { return nil }
                day = value
                if skip("T ") {
                    guard let h = number(2), h < 24, skip(":"), let m = number(2), m < 60 else { return nil }
                    hour = h; minute = m
                    if skip(":") {
                        guard let s = number(2), s <= 60 else { return nil }
                        second = s
                    }
                    _ = skip(" ")
                    if skip("Z") {
                    } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                        let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                        index += 1
                        guard let zh = number(2) else { return nil }
                        _ = skip(":")
                        let zm = number(2) ?? 0
                        zoneOffset = sign * (zh * 3600 + zm * 60)
                    }
                }
            }
        }
        guard index == bytes.count, (1...9999).contains(year) else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let unix = Double(days) * 86400 + Double(hour * 3600 + minute * 60 + second - zoneOffset)
        return unix - referenceOffset
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` for seconds since the reference date.
    public static func formatISO8601(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e13 else { return "2001-01-01T00:00:00Z" }
        let unix = Int64((seconds + referenceOffset).rounded(.down))
        var days = unix / 86400
        var rest = unix % 86400
        if rest < 0 { rest += 86400; days -= 1 }
        let (year, month, day) = civilFromDays(days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = year >= 0 && year < 10000 ? String(repeating: "0", count: 4 - "\(year)".count) + "\(year)" : "\(year)"
        return "\(yearText)-\(two(month))-\(two(day))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))Z"
    }

    // Howard Hinnant's days_from_civil / civil_from_days.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The (year, month, day) of a count of days since 1970-01-01, either side of it; also what
    /// HTTP's dates are made from.
    public static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
