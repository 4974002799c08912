import Foundation

extension Date {
    /// Minutes in UTC for people reading an export: `2025-05-01 14:03 UTC`.
    var exportTimestamp: String {
        let parts = utcParts
        return "\(parts.year)-\(parts.month)-\(parts.day) \(parts.hour):\(parts.minute) UTC"
    }

    /// ISO 8601 to the second in UTC, as Cairo takes a PDF's dates: `2025-05-01T14:03:00Z`.
    var iso8601Seconds: String {
        let parts = utcParts
        return "\(parts.year)-\(parts.month)-\(parts.day)T\(parts.hour):\(parts.minute):\(parts.second)Z"
    }

    private var utcParts: (year: String, month: String, day: String, hour: String, minute: String, second: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: self)
        func padded(_ value: Int?, _ width: Int) -> String {
            let digits = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return (padded(c.year, 4), padded(c.month, 2), padded(c.day, 2), padded(c.hour, 2), padded(c.minute, 2), padded(c.second, 2))
    }
}
