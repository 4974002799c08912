import GriotChat
import GriotProviders

/// The sample story told when no model is configured or the model is down (the Joanie app's
/// "API downtime → fallback to sample stories"): a short, gentle bedtime story made from the
/// captions of the drawings (or their cleaned file names) and the child's first name, with every
/// drawing placed after the paragraph that speaks of it, in the same visible form as a model's
/// story (`StoryText`), and opening with `sampleNotice` as its first paragraph.
///
/// The name is read from the child passage (`StoryPassages.child(in:)`), the drawings from the
/// drawing passages; the wording is picked by a stable hash of the captions, so other drawings
/// make another story and the same drawings always make the same one.
///
/// ```swift
/// let story = TemplateStoryteller().compose(request)   // "This is a sample story…\n\nOnce upon a time, Ama…"
/// ```
public struct TemplateStoryteller: OfflineComposer {
    /// The model name a sample story's turn records: how a stored chapter is known as a sample.
    public static let modelName = "griot-template-storyteller-1"
    public var modelName: String { Self.modelName }
    /// The first paragraph of every sample story.
    public static let sampleNotice = "This is a sample story, written from the drawings' captions while the storyteller is resting; ask again later for a story of its own."

    public init() {}

    public func compose(_ request: ChatRequest) -> String {
        let child = StoryPassages.child(in: request.grounding)
        let drawings = StoryPassages.drawings(in: request.grounding)
        let continuing = !StoryPassages.chapters(in: request.grounding).isEmpty
        return StoryText.render(story(name: child?.firstName, theme: child?.theme, drawings: drawings, continuing: continuing), drawings: drawings)
    }

    /// The story as a reply: the notice, an opening, one paragraph per drawing (the drawing after
    /// it), and a goodnight.
    public func story(name: String?, theme: String?, drawings: [StoryDrawing], continuing: Bool) -> StoryReply {
        let hero = name ?? "our little one"
        // At the start of a sentence.
        let heroAtStart = hero.prefix(1).uppercased() + hero.dropFirst()
        var seed = Self.hash(drawings.map(\.label).joined(separator: "\u{1F}") + "\u{1E}" + (theme ?? ""))
        func pick<T>(_ choices: [T]) -> T {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return choices[Int((seed >> 33) % UInt64(choices.count))]
        }
        var paragraphs = [Self.sampleNotice]
        let themed = theme.map { " It was a night for \($0)." } ?? ""
        paragraphs.append(continuing
            ? pick(["The next evening, \(hero) curled up under the blanket, ready for more of the story.",
                    "The story was not over yet, and \(hero) was ready for the next part."]) + themed
            : pick(["Once upon a time, when the moon was round and yellow, \(hero) found some very special pictures.",
                    "One quiet evening, as the stars came out one by one, \(hero) opened a book full of drawings.",
                    "Long ago, or maybe just yesterday, \(hero) set off on a small and gentle adventure.",
                    "In a cosy house at the end of a sleepy lane lived \(hero), who loved to draw."]) + themed)
        var placements: [StoryReply.Placement] = []
        for (index, drawing) in drawings.enumerated() {
            let label = "“\(drawing.label)”"
            let arrive = index == 0
                ? pick(["First there was \(label).", "The first picture showed \(label).", "Right at the start, \(hero) met \(label)."])
                : pick(["Next came \(label).", "Around the corner waited \(label).", "Then, softly, along came \(label).",
                        "After that, \(hero) found \(label)."])
            let deed = pick(["\(heroAtStart) said hello, and it seemed to smile back.",
                             "Together they counted the twinkling stars.",
                             "They shared a warm cup of milk and a very good giggle.",
                             "It hummed a little song, and \(hero) hummed along.",
                             "They walked side by side, taking tiny careful steps.",
                             "\(heroAtStart) gave it a gentle wave, and it waved back."])
            let feeling = pick(["Everything felt safe and warm.", "It was a happy, peaceful moment.",
                                "\(heroAtStart) felt brave and kind.", "The night was calm and friendly."])
            paragraphs.append("\(arrive) \(deed) \(feeling)")
            placements.append(.init(drawingID: drawing.id, afterParagraph: paragraphs.count))
        }
        paragraphs.append(pick(["At last, \(hero) yawned a big yawn. All the friends from the drawings whispered goodnight, and \(hero) drifted off to sleep.",
                                "Then it was time for bed. \(heroAtStart) snuggled down, and every picture said a soft goodnight.",
                                "The moon smiled down, the stars kept watch, and \(hero) fell fast asleep, dreaming of tomorrow's drawings."]))
        return StoryReply(storyText: paragraphs.joined(separator: "\n\n"), placements: placements)
    }

    /// A told story without the sample notice, its placements moved up one paragraph: what a
    /// sample chapter is stored as (the chapter's `sample` flag says it instead), so a share page
    /// or the next chapter's passages do not repeat the notice. Any other story is returned as is.
    public static func removingSampleNotice(_ story: StoryReply) -> StoryReply {
        var paragraphs = story.paragraphs
        guard paragraphs.first == sampleNotice, paragraphs.count > 1 else { return story }
        paragraphs.removeFirst()
        return StoryReply(storyText: paragraphs.joined(separator: "\n\n"),
                          placements: story.placements.map { .init(drawingID: $0.drawingID, afterParagraph: max(1, $0.afterParagraph - 1)) })
    }

    /// FNV-1a over UTF-8: the same in every process (Swift's `Hasher` is seeded per run).
    static func hash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        return hash
    }
}
