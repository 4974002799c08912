import Foundation
import GriotEmbedding
import GriotSafety

/// The scorers the safety stages use, built once per engine. An assistant's prompt front matter
/// (`safety: [moderation, crisis, pii, citations, groundedness, copyright]`) says which stages
/// run on its turns.
///
/// ```swift
/// let tools = SafetyTools.standard(embedder: archive.embedder, environment: ProcessInfo.processInfo.environment)
/// let engine = ChatEngine(archive: archive, chats: chats, prompts: prompts, provider: provider, counters: counters, safety: tools)
/// ```
public struct SafetyTools: Sendable {
    /// Input moderation: the local classifier, or a remote endpoint with the local one as fallback.
    public var moderator: any Moderator
    /// Output moderation runs on every sentence of a reply as it streams, so it is always local.
    public var local: LocalModerator
    /// Nil only when PCRE2 could not compile the patterns; a turn that needs it then fails closed.
    public var scrubber: PIIScrubber?
    public var groundedness: GroundednessScorer
    public var copyright: CopyrightCheck

    public init(moderator: (any Moderator)? = nil, scrubber: PIIScrubber? = try? PIIScrubber(),
                embed: (@Sendable ([String]) -> [[Float]])? = nil, copyright: CopyrightCheck = CopyrightCheck()) {
        local = LocalModerator()
        self.moderator = moderator ?? local
        self.scrubber = scrubber
        groundedness = GroundednessScorer(embed: embed)
        self.copyright = copyright
    }

    /// The tools for a service: a remote moderation endpoint when `GRIOT_MODERATION_URL` is
    /// set, and the archive's embedder for groundedness.
    public static func standard(embedder: SentenceEmbedder?, environment: [String: String]) -> SafetyTools {
        let remote = RemoteModerationConfiguration.fromEnvironment(environment).map { RemoteModerator(configuration: $0) as any Moderator }
        return SafetyTools(moderator: remote, embed: embedding(embedder))
    }

    /// The embedder as the groundedness scorer takes it.
    static func embedding(_ embedder: SentenceEmbedder?) -> (@Sendable ([String]) -> [[Float]])? {
        guard let embedder else { return nil }
        return { texts in embedder.embed(texts) }
    }
}
