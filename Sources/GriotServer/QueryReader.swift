import Foundation
import Hummingbird

/// A request's query parameters read with the errors a client can act on: an empty value is
/// absent; a bad date or number is a 400 naming the parameter and the form it needs.
struct QueryReader {
    let parameters: Parameters

    init(_ request: Request) {
        parameters = request.uri.queryParameters
    }

    func text(_ name: String) -> String? {
        parameters[Substring(name)].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
    }

    func date(_ name: String) throws -> Date? {
        guard let value = text(name) else { return nil }
        guard let date = try? Date(value, strategy: .iso8601) else {
            throw APIError.badRequest("invalid_\(name)", "\(name) must be an ISO 8601 time such as 2026-11-01T00:00:00Z.")
        }
        return date
    }

    func number(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let value = text(name) else { return fallback }
        guard let number = Int(value), range.contains(number) else {
            throw APIError.badRequest("invalid_\(name)", "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return number
    }
}
