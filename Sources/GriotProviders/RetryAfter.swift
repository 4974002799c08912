import Foundation
import NIOHTTP1

/// How long a response asks the client to wait before trying again.
///
/// `Retry-After` is either a number of seconds or an HTTP date (RFC 9110 §10.2.3); Azure
/// OpenAI also sends `retry-after-ms`, which is more precise and so preferred.
enum RetryAfter {
    static func seconds(in headers: HTTPHeaders, now: Date = Date()) -> Double? {
        if let raw = headers.first(name: "retry-after-ms"), let milliseconds = Double(raw.trimmingCharacters(in: .whitespaces)),
           milliseconds.isFinite, milliseconds >= 0 {
            return milliseconds / 1000
        }
        guard let raw = headers.first(name: "retry-after") else { return nil }
        return seconds(from: raw, now: now)
    }

    static func seconds(from value: String, now: Date = Date()) -> Double? {
        let value = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(value) {
            return seconds.isFinite && seconds >= 0 ? seconds : nil
        }
        guard let date = httpDate(value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// The three date forms HTTP allows: IMF-fixdate, the obsolete RFC 850 form, and asctime.
    private static func httpDate(_ text: String) -> Date? {
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
