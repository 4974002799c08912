import Foundation

extension JSONDecoder {
    /// Reads JSON whose keys were written snake_case from Swift names (turn snapshots, stream
    /// events), where `ID` is one word: `story_id` is `storyID`, not `storyId`.
    static func swiftSnakeCase() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .custom { path in
            let key = path.last!
            guard key.intValue == nil else { return key }
            let words = key.stringValue.split(separator: "_")
            let name = words.enumerated().map { index, word in
                index == 0 ? String(word) : (word == "id" ? "ID" : word.prefix(1).uppercased() + word.dropFirst())
            }.joined()
            return NamedKey(stringValue: name)
        }
        return decoder
    }

    private struct NamedKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
