/// The rule for an identifier a token carries (`sub`, each of `family_group_ids` and
/// `course_ids`): 1 to 255 bytes of UTF-8 with no control characters (C0, DEL, C1), no
/// invisible format characters (zero-width, bidirectional overrides), no line or paragraph
/// separators, and no white space at either end. Anything a real identity provider issues
/// (UUIDs, `auth0|5f…`, e-mail addresses, "Zofia Łukasiewicz") passes; an id that could be
/// cut short when stored (a NUL: the victim's id, then NUL, then more) or that looks like
/// another id on a screen does not.
///
/// ```swift
/// guard ClaimIdentifier.isValid(claims.sub) else { throw AuthError(.invalidClaims, …) }
/// ```
public enum ClaimIdentifier {
    public static let maximumBytes = 255

    /// The rule in words, for error messages and the README.
    public static let rule = "1 to 255 bytes of UTF-8, without control or invisible format characters and without spaces at either end"

    public static func isValid(_ value: String) -> Bool {
        guard (1...maximumBytes).contains(value.utf8.count) else { return false }
        guard let first = value.unicodeScalars.first, let last = value.unicodeScalars.last,
              !first.properties.isWhitespace, !last.properties.isWhitespace else { return false }
        return value.unicodeScalars.allSatisfy(isAllowed)
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: false
        default: true
        }
    }
}
