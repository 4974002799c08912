import Foundation

extension Date {
    /// Minutes in UTC: `2025-05-01 14:03 UTC`.
    var winAnsiTimestamp: String {
        let c = utcComponents
        return String(format: "%04d-%02d-%02d %02d:%02d UTC", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0)
    }

    /// A PDF date in UTC: `D:20250501140300Z`.
    var pdfDate: String {
        let c = utcComponents
        return String(format: "D:%04d%02d%02d%02d%02d%02dZ", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }

    private var utcComponents: DateComponents {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: self)
    }
}
