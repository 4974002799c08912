/// Text the store can hold as it is.
public enum StorableText {
    /// Why `text` cannot be stored as it is, or nil. SQLite's text ends at a NUL character (U+0000),
    /// so a message holding one would be stored cut short while the whole of it went on to the
    /// model; it is refused whole instead, with what to do about it.
    ///
    /// ```swift
    /// if let reason = StorableText.unstorableReason(message, what: "message") { throw … reason … }
    /// ```
    public static func unstorableReason(_ text: String, what: String = "text") -> String? {
        guard text.utf8.contains(0) else { return nil }
        return "The \(what) contains a NUL character (U+0000, written \\u0000 in JSON), which cannot be stored; remove it (it is usually a stray byte from a paste or a program) and send the \(what) again."
    }

    /// Throws `.invalid` for the first text no backend can hold whole (one with a NUL), naming it.
    public static func refuseUnstorable(_ texts: [(text: String, what: String)]) throws {
        for (text, what) in texts {
            if let reason = unstorableReason(text, what: what) { throw ChatStoreError(.invalid, reason) }
        }
    }
}
