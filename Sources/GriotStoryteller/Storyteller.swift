import GriotChat

/// The storyteller assistant (the Joanie app): bedtime stories from a child's drawings, continued
/// chapter by chapter as new drawings arrive.
///
/// ```swift
/// let storyteller = Storyteller.declaration(source: DrawingPassageSource(store: store, blobs: blobs))
/// let engine = ChatEngine(..., assistants: AssistantCatalog.builtIn.adding(storyteller))
/// ```
/// Its parts: the prompt folder `prompts/storyteller/`, the passages its source writes through
/// `StoryPassages`, the JSON reply read by `StoryReplyFormat`, the sample story of
/// `TemplateStoryteller` when the model is down, and `PlacementCheck` in place of groundedness.
public enum Storyteller {
    public static let id = "storyteller"
    public static let displayName = "the Storyteller"

    /// The storyteller's declaration, its passages read from `source`.
    public static func declaration(source: any PassageSource) -> AssistantDeclaration {
        var declaration = AssistantDeclaration(id: id, displayName: displayName, retrieval: .source(source), offline: TemplateStoryteller(),
                             replyFormat: StoryReplyFormat(), replyCheck: PlacementCheck(), fallsBackWhenDown: true)
        declaration.sentenceScreen = ChildSentenceScreen()
        return declaration
    }
}

/// The storyteller's strict output moderation (`ChildModeration`) as the pipeline's sentence
/// screen, for the age the route put in the turn's `child_age` (no age: the youngest band).
public struct ChildSentenceScreen: SentenceScreen {
    public let rules: ChildModeration

    public init(rules: ChildModeration = ChildModeration()) {
        self.rules = rules
    }

    public func blocks(_ sentence: String, in request: TurnRequest) -> Bool {
        rules.verdict(for: sentence, age: request.assistantInput["child_age"].flatMap(Int.init)).blocks
    }
}
