extension ProviderError {
    /// The error as an operator may read it in the logs: what the upstream said, with anything
    /// that looks like a credential replaced by `[redacted]` (an API key echoed back in a 401,
    /// a bearer token, `key=…` in a URL, any run of 32 or more letters, digits, `-`, `_` or `+/=`
    /// that reads as a secret). Never sent to a client: they get a fixed message and the request id.
    ///
    /// ```swift
    /// logger.error("provider failed", metadata: ["detail": .string(error.redactedDescription)])
    /// ```
    public var redactedDescription: String { Self.redacted(description) }

    /// `text` with credentials replaced; linear in its length.
    public static func redacted(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        // Words are cut at white space and at the quotes, commas and brackets JSON puts around values.
        var word = ""
        var redactNext = false
        func flush() {
            guard !word.isEmpty else { return }
            if redactNext || looksSecret(word) {
                output += "[redacted]"
                redactNext = false
            } else {
                output += word
                let lower = word.lowercased()
                // "Bearer abc…", "Authorization: abc…", "api_key: abc…": the value after is a secret.
                redactNext = lower == "bearer" || lower == "basic" || lower.hasSuffix("key:") || lower.hasSuffix("key=")
                    || lower.hasSuffix("token:") || lower.hasSuffix("token=") || lower == "authorization:"
            }
            word = ""
        }
        for character in text {
            if character.isWhitespace || "\"',;()[]{}<>".contains(character) {
                flush()
                output.append(character)
            } else {
                word.append(character)
                // `key=value` inside one word (a query string): redact from the `=` on.
                if character == "=", ["key=", "token=", "secret=", "password="].contains(where: { word.lowercased().hasSuffix($0) }) {
                    output += word
                    word = ""
                    redactNext = true
                }
            }
        }
        flush()
        return output
    }

    /// `sk-…` and `sk_live_…` keys, and long unbroken runs of key characters (base64, hex, JWT parts).
    static func looksSecret(_ word: String) -> Bool {
        let trimmed = word.trimmingTrailingPunctuation
        if trimmed.hasPrefix("sk-") || trimmed.hasPrefix("sk_") || trimmed.hasPrefix("rk_") || trimmed.hasPrefix("pk_") || trimmed.hasPrefix("eyJ") {
            return trimmed.count >= 12
        }
        var run = 0
        var longest = 0
        var hasDigit = false
        for scalar in trimmed.unicodeScalars {
            let isKeyCharacter = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_+/=.".unicodeScalars.contains(scalar))
            if ("0"..."9").contains(scalar) { hasDigit = true }
            run = isKeyCharacter ? run + 1 : 0
            longest = max(longest, run)
        }
        // A long word of letters alone is a word (or a host name with dots); a secret has digits.
        return longest >= 32 && hasDigit
    }
}

private extension String {
    var trimmingTrailingPunctuation: Substring {
        var end = endIndex
        while end > startIndex, ".:".contains(self[index(before: end)]) { end = index(before: end) }
        return self[..<end]
    }
}
