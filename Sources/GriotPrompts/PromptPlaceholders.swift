/// `{{name}}` placeholders in prompt text: the names a template may use, and filling them in.
public enum PromptPlaceholders {
    /// Every name a turn fills in. A template using any other name is rejected when it is loaded,
    /// so a typo never reaches a model as literal braces.
    public static let known: [String: String] = [
        "assistant_name": "the assistant's display name",
        "today": "today's date, ISO 8601",
        "user_name": "the asker's display name",
        "role": "the asker's role (client, coach, ...)",
        "course_title": "the course the thread belongs to",
        "language_name": "the language the reply is asked for, in English (\"Spanish\")",
        "family_names": "the family groups the asker belongs to",
    ]

    /// The placeholders in `text`, with the 1-based line of each.
    static func names(in text: String) -> [(name: String, line: Int)] {
        var found: [(String, Int)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var rest = Substring(line)
            while let open = rest.range(of: "{{") {
                guard let close = rest[open.upperBound...].range(of: "}}") else { break }
                found.append((rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces), index + 1))
                rest = rest[close.upperBound...]
            }
        }
        return found
    }

    /// Replaces each known placeholder by its value; a name without a value becomes empty text.
    static func fill(_ text: String, values: [String: String]) -> String {
        var output = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            output += rest[..<open.lowerBound]
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            output += values[name] ?? ""
            rest = rest[close.upperBound...]
        }
        output += rest
        return output
    }
}

/// English names of the languages the detector knows, for the language instruction.
public enum LanguageNames {
    public static let names: [String: String] = [
        "en": "English", "es": "Spanish", "fr": "French", "de": "German", "it": "Italian", "pt": "Portuguese",
        "nl": "Dutch", "sv": "Swedish", "pl": "Polish", "tr": "Turkish", "sw": "Swahili", "yo": "Yoruba",
        "ht": "Haitian Creole", "vi": "Vietnamese", "tl": "Tagalog", "id": "Indonesian",
        "ru": "Russian", "uk": "Ukrainian", "el": "Greek", "ar": "Arabic", "he": "Hebrew", "hi": "Hindi",
        "zh": "Chinese", "ja": "Japanese", "ko": "Korean", "th": "Thai", "am": "Amharic",
    ]

    public static func name(of code: String) -> String { names[code] ?? code }
}
