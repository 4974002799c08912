import Foundation
import GriotChat
import GriotProviders
@testable import GriotStoryteller

/// Story turns as the storyteller's source writes them, for the tests.
enum StoryFixtures {
    static let drawings = [
        StoryDrawing(id: "d-1", caption: "a red kite over the hill", filename: "kite.png"),
        StoryDrawing(id: "d-2", caption: nil, filename: "my_dragon-2.jpg"),
        StoryDrawing(id: "d-3", caption: "李秀英的龍", filename: nil),
    ]

    static func grounding(name: String? = "Zofia Łukasiewicz", age: Int? = 5, theme: String? = nil, drawings: [StoryDrawing] = drawings,
                          chapters: [StoryPassages.Chapter] = []) -> Grounding {
        let context = StoryPassages.context(child: .init(name: name, age: age, theme: theme), drawings: drawings, chapters: chapters,
                                            images: drawings.map { "data:image/jpeg;base64,\($0.id)" })
        return Grounding(assistant: "storyteller", question: "Tell a bedtime story from \(drawings.count) drawings.", passages: context.passages)
    }

    static func request(_ grounding: Grounding) -> ChatRequest {
        ChatRequest(messages: [ChatMessage(role: .user, content: grounding.question)], grounding: grounding)
    }

    static func json(_ object: Any) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}

/// Counts words as tokens (a word and its punctuation), enough to test a budget's arithmetic.
struct WordCounter: TokenCounter {
    var encodingName: String { "words" }
    func count(_ text: String) -> Int { text.split(whereSeparator: \.isWhitespace).count }
}
