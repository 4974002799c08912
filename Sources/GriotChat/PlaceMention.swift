import Foundation

/// A place a question names the way stories are filed ("Columbus, Georgia", "Cape Girardeau,
/// Missouri"): a town and its state or country, written with a comma. A state alone ("Georgia")
/// is not one: it is also a given name, and it holds too many stories to list.
///
/// ```swift
/// PlaceMention.candidates(in: "Were any of the old people in Columbus, Georgia interviewed?")
/// // ["Columbus, Georgia"]
/// ```
public enum PlaceMention {
    /// At most this many stories are listed for one place (a prompt holds about a dozen passages).
    public static let storyLimit = 12

    /// "Town, Region" phrases in the question, longest first: capitalised words before a comma
    /// and capitalised words after it ("Winnsboro, South Carolina"; "St. Louis, Missouri").
    public static func candidates(in question: String) -> [String] {
        let tokens = question.split(whereSeparator: \.isWhitespace).map(String.init)
        var found: [String] = []
        for (index, token) in tokens.enumerated() where token.hasSuffix(",") {
            var town: [String] = []
            var cursor = index
            while cursor >= 0, isNameWord(tokens[cursor].trimmingCharacters(in: CharacterSet(charactersIn: ","))), town.count < 3 {
                town.insert(tokens[cursor].trimmingCharacters(in: CharacterSet(charactersIn: ",")), at: 0)
                if cursor < index, tokens[cursor].hasSuffix(",") || tokens[cursor].hasSuffix(".") && !abbreviations.contains(tokens[cursor]) { break }
                cursor -= 1
            }
            var region: [String] = []
            cursor = index + 1
            while cursor < tokens.count, region.count < 2 {
                let word = tokens[cursor].trimmingCharacters(in: .punctuationCharacters)
                guard isNameWord(word) else { break }
                region.append(word)
                if tokens[cursor].last.map({ ",.?!;:".contains($0) }) ?? false { break }
                cursor += 1
            }
            guard !town.isEmpty, !region.isEmpty else { continue }
            // "Columbus, Georgia" before a shorter reading of the town ("Girardeau, Missouri").
            for start in town.indices {
                found.append(town[start...].joined(separator: " ") + ", " + region.joined(separator: " "))
            }
        }
        return found
    }

    private static let abbreviations: Set<String> = ["St.", "Ft.", "Mt."]

    private static func isNameWord(_ word: String) -> Bool {
        guard let first = word.first, first.isUppercase else { return false }
        return !["My", "The", "I", "Were", "Was", "Did", "Who", "What", "Which", "Does", "Is", "Are", "In", "At", "From"].contains(word)
    }

    /// Whether a story's place is the place named: "Columbus, Georgia" names the place
    /// "Columbus, Georgia", not "Columbus County".
    public static func matches(_ place: String, named: String) -> Bool {
        fold(place) == fold(named)
    }

    static func fold(_ text: String) -> String {
        text.lowercased().split(whereSeparator: { !$0.isLetter }).joined(separator: " ")
    }
}
