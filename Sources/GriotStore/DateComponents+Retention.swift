import Foundation

extension DateComponents {
    /// The moment this long before `date`, counted in the Gregorian calendar in UTC, so that
    /// "18 months" means calendar months.
    public func before(_ date: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var negated = DateComponents()
        negated.year = year.map { -$0 }
        negated.month = month.map { -$0 }
        negated.day = day.map { -$0 }
        negated.hour = hour.map { -$0 }
        negated.minute = minute.map { -$0 }
        negated.second = second.map { -$0 }
        return calendar.date(byAdding: negated, to: date) ?? date
    }

    /// The moment this long after `date`, counted the same way as `before`.
    public func after(_ date: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(byAdding: self, to: date) ?? date
    }
}
