import Foundation
import GriotArchive
import GriotPrompts
import GriotProviders
import GriotSearch
import GriotStore
import GriotStories
import Synchronization

/// One turn, top to bottom. Each stage is a method below, in the order `run` calls them:
///
/// 1. `retrieve`: passages the viewer may see, by the assistant's retrieval settings
/// 2. `assemble`: system prompt, instructions, profile, course, passages and history under the budget
///    (these two run on the engine's `PreparationLane`, so that a burst of new chats does not hold
///    up the replies already streaming)
/// 3. `generate`: the provider's stream, regrouped into deltas of about 20 tokens (the first text
///    at once), with citations
/// 4. `finish`: the reply and its turn snapshot stored, with how it ended (complete, stopped, failed)
///
/// The safety stages (moderation, PII, citation checks, groundedness) slot in between these.
struct TurnPipeline: Sendable {
    let engine: ChatEngine

    /// Tokens per delta event.
    static let deltaTokens = 20
    /// How often a streaming reply's text so far is written to the database (by `ReplyCheckpoints`).
    static let flushInterval = 0.5

    func run(_ plan: TurnPlan, emit: AsyncStream<TurnEvent>.Continuation) async {
        var state = TurnState(plan: plan, started: Date())
        let provider = engine.provider
        state.model = plan.template.model.model ?? provider.defaultModel
        emit.yield(.meta(TurnMeta(
            turnID: plan.turnID, threadID: plan.thread.id, userMessageID: plan.userMessage.id, assistantMessageID: plan.replyMessage.id,
            assistant: plan.template.assistant, promptVersion: plan.template.version, promptHash: plan.template.textHash,
            provider: provider.name, model: state.model, command: plan.command?.rawValue, language: plan.language)))
        do {
            try saveTurn(&state, status: .streaming)
            let (sources, context) = try await prepare(plan, state: &state)
            let finder = CitationFinder(sources: sources.filter { source in context.passages.contains { $0.number == source.grounding.number } })
            try await generate(plan, context: context, finder: finder, state: &state, emit: emit)
            emit.yield(.chips(Chips(active: plan.command?.rawValue, available: plan.template.commands.map { "/" + $0 })))
            emit.yield(.budget(context.ledger))
            state.status = .complete
        } catch is CancellationError {
            state.status = .stopped
        } catch let error as ContextOverflow {
            state.fail(code: "message_too_long", message: error.description)
        } catch let error as ProviderError {
            if case .circuitOpen = error {
                state.fail(code: "ai_unavailable", message: error.description)
            } else {
                state.fail(code: "provider_error", message: error.description)
            }
        } catch {
            state.fail(code: "internal_error", message: "The turn failed: \(error). Your message is saved; try again.")
        }
        if state.status == .streaming || Task.isCancelled && state.status != .failed { state.status = .stopped }
        if let failure = state.failure { emit.yield(.error(failure)) }
        finish(&state)
        emit.yield(.done(TurnSummary(
            turnID: plan.turnID, messageID: plan.replyMessage.id, status: state.status, text: state.text, citations: state.citations,
            model: state.model, elapsedSeconds: Date().timeIntervalSince(state.started), firstTokenSeconds: state.firstToken)))
        emit.finish()
    }

    // MARK: Stages

    /// Stages 1 and 2, on the preparation lane. What they recorded in `state` is kept when they
    /// fail, as it would be on the turn's own task. They only read the database: a write there
    /// would hold SQLite's one writer lock at low priority while the relaying threads wait for it.
    private func prepare(_ plan: TurnPlan, state: inout TurnState) async throws -> ([CitationFinder.Source], AssembledContext) {
        let before = state
        let (after, outcome) = try await engine.preparation.run { [self] in
            var state = before
            let outcome = Result { () throws -> ([CitationFinder.Source], AssembledContext) in
                let sources = try retrieve(plan, state: &state)
                return (sources, try assemble(plan, sources: sources, state: &state))
            }
            return (state, outcome)
        }
        state = after
        return try outcome.get()
    }

    private func retrieve(_ plan: TurnPlan, state: inout TurnState) throws -> [CitationFinder.Source] {
        let policy = plan.template.retrieval
        guard policy.k > 0 else { return [] }
        var query = plan.question
        if query.isEmpty {
            // "/summary" alone: about what the thread was last about.
            query = plan.history.last(where: { $0.role == .user })?.content ?? ""
        }
        guard !query.isEmpty else { return [] }
        let settings = RetrievalSettings(
            mode: policy.mode == "bm25" ? .lexical : (policy.mode == "dense" ? .dense : .hybrid),
            fusion: policy.fusion == "rrf" ? .reciprocalRank(k: Float(policy.rrfK)) : .weighted(lexicalWeight: Float(policy.lexicalWeight)))
        let outcome = try engine.archive.search(query, filter: SearchFilter(viewer: plan.request.viewer), k: policy.k, settings: settings)
        var stories: [String: GriotStories.Story] = [:]
        var sources: [CitationFinder.Source] = []
        for (index, result) in outcome.results.enumerated() {
            let storyID = result.passage.storyID
            if stories[storyID] == nil { stories[storyID] = try engine.archive.store.story(id: storyID) }
            let story = stories[storyID]
            var people = story?.interviewees ?? []
            for name in (story?.people ?? []) + (story?.aiMetadata.people ?? []) where !people.contains(name) { people.append(name) }
            let grounding = GroundingPassage(
                number: index + 1, storyID: storyID, passageID: result.passage.id, storyTitle: result.storyTitle, people: people,
                places: story?.aiMetadata.places ?? [], speaker: result.passage.speaker, startSeconds: result.passage.startSeconds,
                text: result.passage.text, interviewees: story?.interviewees ?? [],
                speakerRuns: story.map { Self.speakerRuns(of: result.passage, in: $0) } ?? [])
            sources.append(CitationFinder.Source(grounding: grounding, passage: result.passage, interviewee: story?.interviewees.first,
                                                 sourceType: story?.source.map { _ in "archive" } ?? "story"))
            state.retrieved.append(TurnSnapshot.RetrievedPassage(
                number: index + 1, storyID: storyID, passageID: result.passage.id, score: Double(result.score),
                lexicalRank: result.lexical?.rank, lexicalScore: result.lexical.map { Double($0.score) },
                denseRank: result.dense?.rank, denseScore: result.dense.map { Double($0.score) }))
        }
        state.retrieval = "\(policy.mode) k=\(policy.k) fusion=\(settings.fusion)"
        return sources
    }

    private func assemble(_ plan: TurnPlan, sources: [CitationFinder.Source], state: inout TurnState) throws -> AssembledContext {
        let chats = engine.chats
        let userID = plan.thread.userID
        let course = try plan.request.courseID.flatMap { try chats.course(id: $0) }
        let profile = try chats.profile(userID: userID)
        let families = plan.request.viewer.familyGroupIDs.sorted().map(Self.familyName)
        let values = [
            "assistant_name": plan.template.assistant == "griot" ? "the Griot" : "the SelfFull coach",
            "today": ISO8601DateFormatter.string(from: engine.now(), timeZone: .current, formatOptions: [.withFullDate]),
            "user_name": plan.request.userName ?? profile?.displayName ?? "a family member",
            "role": plan.role ?? "",
            "course_title": course?.title ?? "",
            "language_name": "",
            "family_names": families.isEmpty ? "your" : "the " + families.joined(separator: " and "),
        ]
        let system = try plan.template.systemPrompt(role: plan.role, command: plan.command?.rawValue, language: plan.language, values: values)
        let history = plan.history
            .filter { $0.deletedAt == nil && !$0.content.isEmpty && ($0.status == .complete || $0.status == .stopped) }
            .map { ChatMessage(role: $0.role == .user ? .user : .assistant, content: $0.content) }
        let question = plan.command.map { "/\($0.rawValue) \(plan.question)".trimmingCharacters(in: .whitespaces) } ?? plan.question
        let parts = ContextParts(
            systemPrompt: system, customInstructions: course?.customInstructions ?? "", profileBio: profile?.bio ?? "",
            courseMetadata: course.map { [$0.title, $0.summary].filter { !$0.isEmpty }.joined(separator: "\n") } ?? "",
            passages: sources.map(\.grounding), history: history, question: question)
        let counter = try engine.counters.counter(for: plan.template.model.encoding)
        let context = try ContextAssembler(counter: counter, budget: plan.template.budget).assemble(parts)
        state.ledger = context.ledger
        state.systemPrompt = system
        return context
    }

    private func generate(_ plan: TurnPlan, context: AssembledContext, finder: CitationFinder, state: inout TurnState,
                          emit: AsyncStream<TurnEvent>.Continuation) async throws {
        let counter = try engine.counters.counter(for: plan.template.model.encoding)
        let request = ChatRequest(
            messages: context.messages, settings: plan.template.model.settings(maxTokens: plan.template.budget.replyReserve),
            grounding: Grounding(assistant: plan.template.assistant, question: plan.question, passages: context.passages,
                                 command: plan.command?.rawValue, language: plan.language))
        // The provider calls the regrouping in the task that reads the model's connection: a token
        // crosses no task boundary between the model's stream and the delta it ends up in.
        let regrouping = DeltaRegrouping(state: state, finder: finder, counter: counter, emit: emit) { [checkpoints = engine.checkpoints] text in
            checkpoints.save(messageID: plan.replyMessage.id, text: text)
        }
        defer { state = regrouping.state }
        try await engine.provider.generate(request, into: regrouping.receive)
        try Task.checkCancellation()
        regrouping.releasePending()
    }

    // MARK: Storing

    private func finish(_ state: inout TurnState) {
        state.finished = Date()
        engine.checkpoints.close(messageID: state.plan.replyMessage.id)
        try? engine.chats.finishMessage(id: state.plan.replyMessage.id, content: state.text, status: state.status,
                                        error: state.failure?.message)
        try? saveTurn(&state, status: state.status)
    }

    private func saveTurn(_ state: inout TurnState, status: MessageStatus) throws {
        let plan = state.plan
        let snapshot = TurnSnapshot(
            assistant: plan.template.assistant, promptVersion: plan.template.version, promptHash: plan.template.textHash,
            promptLabel: plan.request.promptLabel, role: plan.role, command: plan.command?.rawValue,
            language: plan.language, languageConfidence: plan.languageGuess.confidence, provider: engine.provider.name,
            model: state.model, upstreamModel: state.upstreamModel, settings: plan.template.model.settings(maxTokens: plan.template.budget.replyReserve),
            retrieval: state.retrieval, indexPassages: try? engine.archive.indexedPassageCount(), passages: state.retrieved,
            ledger: state.ledger, citations: state.citations, text: state.text, failure: state.failure, usage: state.usage,
            firstTokenSeconds: state.firstToken)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let json = String(decoding: try encoder.encode(snapshot), as: UTF8.self)
        try engine.chats.saveTurn(TurnRecord(
            id: plan.turnID, threadID: plan.thread.id, userMessageID: plan.userMessage.id, assistantMessageID: plan.replyMessage.id,
            assistant: plan.template.assistant, promptVersion: plan.template.version, promptHash: plan.template.textHash,
            provider: engine.provider.name, model: state.model, status: status, startedAt: state.started, finishedAt: state.finished,
            snapshot: json))
    }

    /// Where each segment's speaker starts within a passage, from the story's timed segments.
    static func speakerRuns(of passage: Passage, in story: GriotStories.Story) -> [GroundingPassage.SpeakerRun] {
        let segments = story.transcript.segments
        var runs: [GroundingPassage.SpeakerRun] = []
        for (index, range) in PassageSplitter().segmentRanges(story.transcript).enumerated() {
            guard let speaker = segments[index].speaker, range.upperBound > passage.startOffset, range.lowerBound < passage.endOffset else { continue }
            runs.append(.init(start: max(0, range.lowerBound - passage.startOffset), speaker: speaker))
        }
        return runs
    }

    static func endsInsideMarker(_ text: String) -> Bool {
        guard let open = text.lastIndex(of: "[") else { return false }
        return !text[open...].contains("]") && text.distance(from: open, to: text.endIndex) <= 12
    }

    /// "fam-carter" → "Carter": family group ids as a prompt can say them.
    static func familyName(_ id: String) -> String {
        let bare = id.hasPrefix("fam-") ? String(id.dropFirst(4)) : id
        return bare.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }
}

/// Stage 3's regrouping of the model's text into deltas of about `TurnPipeline.deltaTokens`
/// tokens (the first text at once), with a citation event as each marker appears, and the text
/// so far handed to `ReplyCheckpoints` every `flushInterval` seconds. Events come one at a time
/// from the provider's reading task; the lock is never contended.
final class DeltaRegrouping: Sendable {
    private struct Progress {
        var state: TurnState
        var pending = ""
        var released = false
        var lastFlush = Date()
        var cited = Set<Int>()
    }

    private let progress: Mutex<Progress>
    private let finder: CitationFinder
    private let counter: any TokenCounter
    private let emit: AsyncStream<TurnEvent>.Continuation
    private let flush: @Sendable (String) -> Void

    init(state: TurnState, finder: CitationFinder, counter: any TokenCounter, emit: AsyncStream<TurnEvent>.Continuation,
         flush: @escaping @Sendable (String) -> Void) {
        progress = Mutex(Progress(state: state))
        self.finder = finder
        self.counter = counter
        self.emit = emit
        self.flush = flush
    }

    /// The turn's state with the text, citations and usage received so far.
    var state: TurnState { progress.withLock { $0.state } }

    @Sendable func receive(_ event: ProviderEvent) {
        progress.withLock { progress in
            switch event {
            case .model(let model):
                progress.state.upstreamModel = model
            case .text(let piece):
                if progress.state.firstToken == nil { progress.state.firstToken = Date().timeIntervalSince(progress.state.started) }
                progress.state.text += piece
                progress.pending += piece
                // The first text goes out at once (waiting for 20 tokens would hold the first
                // words back 20 token intervals); whole citation markers stay in one delta, so a
                // client never sees "[1" alone. Fewer bytes than `deltaTokens` cannot be that many
                // tokens, so they are not counted.
                if !progress.released || (progress.pending.utf8.count >= TurnPipeline.deltaTokens
                                          && counter.count(progress.pending) >= TurnPipeline.deltaTokens),
                   !TurnPipeline.endsInsideMarker(progress.pending) {
                    release(&progress)
                }
                if Date().timeIntervalSince(progress.lastFlush) >= TurnPipeline.flushInterval {
                    flush(progress.state.text)
                    progress.lastFlush = Date()
                }
            case .finished(_, let usage):
                progress.state.usage = usage
            }
        }
    }

    /// Sends what is held back (the reply is complete).
    func releasePending() {
        progress.withLock { release(&$0) }
    }

    private func release(_ progress: inout Progress) {
        guard !progress.pending.isEmpty else { return }
        emit.yield(.delta(progress.pending))
        progress.pending = ""
        progress.released = true
        let text = progress.state.text
        for marker in finder.markers(in: text) where !progress.cited.contains(marker.number) {
            guard let citation = finder.citation(number: marker.number, in: text, at: marker.end) else { continue }
            progress.cited.insert(marker.number)
            progress.state.citations.append(citation)
            emit.yield(.citation(citation))
        }
    }
}

/// What a turn has done so far; becomes its stored snapshot.
struct TurnState: Sendable {
    var plan: TurnPlan
    var started: Date
    var finished: Date?
    var status: MessageStatus = .streaming
    var model = ""
    var upstreamModel: String?
    var text = ""
    var citations: [Citation] = []
    var retrieved: [TurnSnapshot.RetrievedPassage] = []
    var retrieval = "off"
    var ledger: TokenLedger?
    var systemPrompt = ""
    var failure: TurnFailure?
    var usage: TokenUsage?
    var firstToken: Double?

    mutating func fail(code: String, message: String) {
        status = .failed
        failure = TurnFailure(code: code, message: message)
    }
}

/// What is stored with each turn so it can be explained (and, later, replayed).
struct TurnSnapshot: Codable {
    struct RetrievedPassage: Codable, Sendable {
        var number: Int
        var storyID: String
        var passageID: String
        var score: Double
        var lexicalRank: Int?
        var lexicalScore: Double?
        var denseRank: Int?
        var denseScore: Double?
    }

    var assistant: String
    var promptVersion: Int
    var promptHash: String
    var promptLabel: String
    var role: String?
    var command: String?
    var language: String?
    var languageConfidence: Double
    var provider: String
    var model: String
    var upstreamModel: String?
    var settings: ModelSettings
    var retrieval: String
    var indexPassages: Int?
    var passages: [RetrievedPassage]
    var ledger: TokenLedger?
    var citations: [Citation]
    var text: String
    var failure: TurnFailure?
    var usage: TokenUsage?
    var firstTokenSeconds: Double?
}
