import Foundation

/// GRDB's date text (`yyyy-MM-dd HH:mm:ss.SSS`, UTC) read and written as whole microseconds,
/// with integer arithmetic only: a date parsed into a `Date` (a double) and encoded by
/// postgres-nio (which truncates) can land a microsecond off; this cannot.
enum SQLiteTimestamp {
    /// The microseconds since 1970 of `yyyy-MM-dd[( |T)HH:mm[:ss[.fraction]]][Z]`, or nil for
    /// any other text (the caller then asks GRDB, which reads more forms, at a double's precision).
    static func microseconds(_ text: String) -> Int64? {
        var bytes = Array(text.utf8)
        if bytes.last == UInt8(ascii: "Z") { bytes.removeLast() }
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[range] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0, fraction: Int64 = 0
        if bytes.count > 10 {
            guard bytes.count >= 16, bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"),
                  let h = number(11..<13), let m = number(14..<16), h < 24, m < 60 else { return nil }
            hour = h
            minute = m
            if bytes.count > 16 {
                guard bytes.count >= 19, bytes[16] == UInt8(ascii: ":"), let s = number(17..<19), s < 60 else { return nil }
                second = s
                if bytes.count > 19 {
                    // Up to microseconds, which PostgreSQL keeps; a finer fraction is left to GRDB.
                    let digits = bytes.count - 20
                    guard bytes[19] == UInt8(ascii: "."), (1...6).contains(digits), let f = number(20..<bytes.count) else { return nil }
                    fraction = f * [1, 100_000, 10_000, 1_000, 100, 10, 1][digits]
                }
            }
        }
        let seconds = daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
        return seconds * 1_000_000 + fraction
    }

    /// `yyyy-MM-dd HH:mm:ss.SSSSSS+00`, the exact text PostgreSQL parses into the same instant.
    static func text(microseconds: Int64) -> String {
        let (days, microsecondOfDay) = microseconds.floorDividedAndRemainder(by: 86_400_000_000)
        let (year, month, day) = civilFromDays(days)
        let second = microsecondOfDay / 1_000_000
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(second / 3_600, 2)):\(pad(second / 60 % 60, 2)):\(pad(second % 60, 2))"
            + ".\(pad(microsecondOfDay % 1_000_000, 6))+00"
    }

    // Howard Hinnant's days-from-civil and its inverse (proleptic Gregorian, day 0 = 1970-01-01).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

private extension Int64 {
    /// Division rounding down, so a date before 1970 still has its time of day in 0..<divisor.
    func floorDividedAndRemainder(by divisor: Int64) -> (Int64, Int64) {
        let remainder = self % divisor
        return remainder < 0 ? (self / divisor - 1, remainder + divisor) : (self / divisor, remainder)
    }
}
