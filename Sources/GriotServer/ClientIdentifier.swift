/// The rule for an id a client names (a Griot session, a coaching thread): 1 to 128 characters
/// of ASCII letters, digits, `-`, `_`, `.` and `~` (the characters a URL path carries as they
/// are), starting with a letter or digit. An id outside it could not be named again in a path
/// (`../../etc/passwd`, a 100,000-character id), so a session made with it could never be read
/// or deleted by its owner; it is refused with 400 before anything is stored, and the routes that
/// read an id check the same rule.
///
/// ```swift
/// let id = try ClientIdentifier.check(body.sessionID, field: "session_id")
/// ```
enum ClientIdentifier {
    static let maximumLength = 128

    static func isValid(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard (1...maximumLength).contains(bytes.count), let first = bytes.first, isLetterOrDigit(first) else { return false }
        return bytes.allSatisfy { isLetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "~") }
    }

    /// `value` when it follows the rule, else a 400 `invalid_<field>` naming the rule.
    @discardableResult
    static func check(_ value: String, field: String) throws -> String {
        guard isValid(value) else {
            let shown = value.count > 40 ? "\(value.prefix(40))… (\(value.count) characters)" : value
            throw APIError(.badRequest, code: "invalid_\(field)",
                           "\(field) \"\(shown)\" is not a valid id: use 1 to \(maximumLength) letters, digits, '-', '_', '.' or '~', starting with a letter or digit, or leave it out to have one made for you.",
                           details: ["field": field, "pattern": pattern])
        }
        return value
    }

    /// The rule as a regular expression, as the OpenAPI document states it.
    static let pattern = "^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$"

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
