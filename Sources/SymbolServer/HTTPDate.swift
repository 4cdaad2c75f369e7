/// RFC 9110's IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) for `Date` and `Last-Modified`:
/// computed from the calendar, not strftime, so that no locale can change the names.
enum HTTPDate {
    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"] // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The date `seconds` after the epoch (UTC); times before it are given as the epoch.
    static func format(secondsSinceEpoch seconds: Int64) -> String {
        let seconds = max(0, seconds)
        let dayNumber = seconds / 86_400, secondOfDay = seconds % 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: dayNumber)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(dayNumber % 7)]), \(two(day)) \(months[Int(month - 1)]) \(year) "
            + "\(two(secondOfDay / 3_600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    /// Howard Hinnant's days-to-civil algorithm, for days since 1970-01-01 (non-negative).
    private static func civilDate(daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = daysSinceEpoch + 719_468
        let era = z / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
