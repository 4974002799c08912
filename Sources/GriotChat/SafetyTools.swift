import Foundation
import GriotEmbedding
import GriotSafety
import Synchronization

/// The scorers the safety stages use, built once per engine. An assistant's prompt front matter
/// (`safety: [moderation, crisis, pii, citations, groundedness, copyright]`) says which stages
/// run on its turns.
///
/// ```swift
/// let tools = SafetyTools.standard(embedder: archive.embedder, environment: ProcessInfo.processInfo.environment)
/// let engine = ChatEngine(archive: archive, chats: chats, prompts: prompts, provider: provider, counters: counters, safety: tools)
/// ```
public struct SafetyTools: Sendable {
    /// Input moderation: the local classifier, or a remote endpoint beside it (the stricter wins; the local one alone when the endpoint fails).
    public var moderator: any Moderator
    /// Output moderation runs on every sentence of a reply as it streams, so it is always local.
    public var local: LocalModerator
    /// Nil only when PCRE2 could not compile the patterns; a turn that needs it then fails closed.
    public var scrubber: PIIScrubber?
    public var groundedness: GroundednessScorer
    public var copyright: CopyrightCheck

    public init(moderator: (any Moderator)? = nil, scrubber: PIIScrubber? = try? PIIScrubber(),
                embed: (@Sendable ([String]) -> [[Float]])? = nil, copyright: CopyrightCheck = CopyrightCheck(),
                semantics: ModerationSemantics? = nil) {
        // The semantic layer reads what people write (input moderation); replies are checked
        // by the rules alone, sentence by sentence as they stream.
        local = LocalModerator()
        self.moderator = moderator ?? LocalModerator(semantics: semantics)
        self.scrubber = scrubber
        groundedness = GroundednessScorer(embed: embed)
        self.copyright = copyright
    }

    /// The tools for a service: a remote moderation endpoint when `GRIOT_MODERATION_URL` is
    /// set, and the archive's embedder for groundedness.
    public static func standard(embedder: SentenceEmbedder?, environment: [String: String]) -> SafetyTools {
        // The moderator's semantic layer reads the same model folder as the embedder; without
        // the model (no embedder) the rules answer alone.
        let semantics = embedder == nil ? nil : try? ModerationSemantics(folder: ModerationSemantics.defaultModelFolder)
        // The endpoint beside the whole local reading (semantic layer included): the stricter wins.
        let remote = RemoteModerationConfiguration.fromEnvironment(environment).map {
            RemoteModerator(configuration: $0, local: LocalModerator(semantics: semantics)) as any Moderator
        }
        return SafetyTools(moderator: remote, embed: embedding(embedder), semantics: semantics)
    }

    /// The embedder as the groundedness scorer takes it, with a cache: the scorer embeds the
    /// sentences of the passages a turn retrieved, and the same passages come back turn after turn.
    static func embedding(_ embedder: SentenceEmbedder?) -> (@Sendable ([String]) -> [[Float]])? {
        guard let embedder else { return nil }
        let cache = EmbeddingCache()
        return { texts in cache.vectors(for: texts) { embedder.embed($0) } }
    }
}

/// Sentence vectors by text, for the groundedness stage; emptied when it reaches its size
/// (4,096 sentences, about 6 MB), which is simpler than LRU and enough for recurring passages.
final class EmbeddingCache: Sendable {
    static let capacity = 4096
    private let stored = Mutex<[String: [Float]]>([:])

    func vectors(for texts: [String], embed: ([String]) -> [[Float]]) -> [[Float]] {
        var found = stored.withLock { cache in texts.map { cache[$0] } }
        let missing = Array(Set(texts.indices.filter { found[$0] == nil }.map { texts[$0] }))
        guard !missing.isEmpty else { return found.map { $0! } }
        let made = embed(missing)
        guard made.count == missing.count else { return embed(texts) }
        let fresh = Dictionary(zip(missing, made), uniquingKeysWith: { first, _ in first })
        stored.withLock { cache in
            if cache.count + fresh.count > Self.capacity { cache.removeAll(keepingCapacity: true) }
            cache.merge(fresh) { old, _ in old }
        }
        for index in texts.indices where found[index] == nil { found[index] = fresh[texts[index]] }
        return found.map { $0! }
    }
}
