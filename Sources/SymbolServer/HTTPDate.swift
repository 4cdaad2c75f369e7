import Codecs

/// RFC 9110's IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) for `Date` and `Last-Modified`:
/// computed from the calendar, not strftime, so that no locale can change the names.
enum HTTPDate {
    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"] // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The date `seconds` after the epoch (UTC); times before it are given as the epoch.
    static func format(secondsSinceEpoch seconds: Int64) -> String {
        let seconds = max(0, seconds)
        let dayNumber = seconds / 86_400, secondOfDay = seconds % 86_400
        let (year, month, day) = PlistDate.civilFromDays(dayNumber)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(dayNumber % 7)]), \(two(day)) \(months[Int(month - 1)]) \(year) "
            + "\(two(secondOfDay / 3_600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }
}
