import Foundation
import GriotArchive
import GriotPrompts
import GriotProviders
import GriotSafety
import GriotSearch
import GriotStore
import GriotStories
import GriotTracing
import Logging
import Synchronization
import Tracing

/// One turn, top to bottom. Each stage is a method below, in the order `run` calls them:
///
/// 0. `screen`: input moderation. A toxic message is blocked (nothing reaches the model); a
///    message about self-harm gets the crisis template and a flag instead of a model's answer
/// 1. `retrieve`: the passages the assistant declares (`AssistantRetrieval`): none, the stories the
///    viewer may see by its prompt's retrieval settings, or its own source's (with images)
/// 2. `assemble`: system prompt, instructions, profile, course, passages and history under the budget
///    (these two run on the engine's `PreparationLane`, so that a burst of new chats does not hold
///    up the replies already streaming)
/// 3. `generate`: the provider's stream, held to whole sentences by the `OutputGate` (the echo
///    stage always; output moderation, PII scrubbing when those stages are on), each cited sentence checked against
///    the passage it cites before it is sent (`CitationFinder`), regrouped into deltas of about
///    20 tokens (the first text at once), with citations whose quotes are masked like the reply
/// 4. `review`: groundedness of the whole answer (as the model wrote it, before masking), or the
///    assistant's own `ReplyCheck` in its place, and copyright similarity, as flags
/// 5. `finish`: the reply, its turn snapshot and the stages' verdicts stored, with how it ended
///    (complete, stopped, failed, blocked)
///
/// What the assistant is (its display name, retrieval, offline composer, reply format and check)
/// is read from its `AssistantDeclaration` in the plan; no assistant is named here. Offline, its
/// composer writes the reply; a reply format has the model's whole reply rendered before any of
/// it is shown (`FormattedReply`).
///
/// Which safety stages run is the assistant's choice, in its prompt's front matter; the echo stage
/// (`PromptEcho`) is not a choice: no assistant wants its instructions recited or its sources
/// block copied out as an answer, and it runs for every assistant.
///
/// The turn is a span ("turn"), and each stage that runs a span of its own under it, named as
/// above; the model call is a GenAI span under `generate` (`ChatProvider.generateTraced`). Span
/// attributes hold ids, counts, kinds and statuses only (docs/TRACES.md).
struct TurnPipeline: Sendable {
    let engine: ChatEngine

    /// Tokens per delta event.
    static let deltaTokens = 20

    /// Where a failed turn's inside story goes (the service's log handler, or stderr).
    static let log = Logger(label: "griot.turn")

    func run(_ plan: TurnPlan, emit: TurnEmitter) async {
        let span = Traced.start("turn")
        span.updateAttributes { attributes in
            attributes[TraceAttribute.turnID] = plan.turnID
            attributes[TraceAttribute.threadID] = plan.thread.id
            attributes[TraceAttribute.assistant] = plan.template.assistant
            attributes[TraceAttribute.promptVersion] = plan.template.version
        }
        await Traced.continuing(span, ending: true) { span in await run(plan, emit: emit, span: span) }
    }

    private func run(_ plan: TurnPlan, emit: TurnEmitter, span: any Span) async {
        var state = TurnState(plan: plan, started: Date())
        let provider = plan.provider
        state.model = plan.composer?.modelName ?? plan.request.model ?? plan.template.model.model ?? provider.defaultModel
        state.indexVersion = try? await engine.archive.indexVersion()
        emit.yield(.meta(TurnMeta(
            turnID: plan.turnID, threadID: plan.thread.id, userMessageID: plan.userMessage.id, assistantMessageID: plan.replyMessage.id,
            assistant: plan.template.assistant, promptVersion: plan.template.version, promptHash: plan.template.textHash,
            provider: provider.name, model: state.model, command: plan.command?.rawValue, language: plan.language)))
        do {
            try await saveTurn(&state, status: .streaming)
            let screening = try await Traced.span("screen") { span in
                let screening = try await screen(plan, state: &state)
                span.attributes[TraceAttribute.decision] = screening.kind
                Traced.note("screen:\(screening.kind)")
                return screening
            }
            switch screening {
            case .blocked:
                break
            case .crisis(let reply):
                try respondToCrisis(plan, reply: reply, state: &state, emit: emit)
            case .proceed:
                let (sources, context) = try await prepare(plan, state: &state)
                let finder = CitationFinder(sources: sources.filter { source in context.passages.contains { $0.number == source.grounding.number } })
                try await Traced.span("generate") { span in
                    try await generate(plan, context: context, finder: finder, state: &state, emit: emit)
                    if let firstToken = state.firstToken { span.attributes[TraceAttribute.firstTokenSeconds] = firstToken }
                }
                try Task.checkCancellation()
                try await Traced.span("review") { span in
                    try await review(plan, context: context, publicDomain: Set(finder.sources.values.filter(\.isPublicDomain).map(\.grounding.number)),
                                     state: &state, emit: emit)
                    if let score = state.groundedness?.answer { span.attributes[TraceAttribute.groundedness] = score }
                }
                emit.yield(.chips(Chips(active: plan.command?.rawValue, available: plan.template.commands.map { "/" + $0 })))
                emit.yield(.budget(context.ledger))
                state.status = .complete
            }
        } catch is CancellationError {
            state.status = .stopped
        } catch let error as TurnStageFailure {
            state.fail(code: error.code, message: error.message)
        } catch let error as ContextOverflow {
            state.fail(code: "message_too_long", message: error.description)
        } catch let error as ChatError {
            // An assistant's passage source refused the request (a drawing that is not the asker's).
            state.fail(code: error.kind == .notFound ? "not_found" : "invalid_request", message: error.description)
        } catch let error as ProviderError {
            // The upstream's own words (a 401's body can hold a key and an internal host) go to
            // the log, redacted; the client gets ours and the id to quote.
            if case .circuitOpen = error {
                state.fail(code: "ai_unavailable", message: error.description, detail: error.redactedDescription)
            } else {
                state.fail(code: "provider_error", message: "The AI service could not answer; your message is saved. \(Self.askSupport(plan))",
                           detail: error.redactedDescription)
            }
        } catch {
            state.fail(code: "internal_error", message: "Something went wrong on our side; your message is saved. \(Self.askSupport(plan))",
                       detail: ProviderError.redacted(String(describing: error)))
        }
        if let failure = state.failure, let detail = failure.detail {
            Self.log.error("turn failed", metadata: [
                "turn_id": .string(plan.turnID), "request_id": .string(plan.request.requestID ?? ""), "code": .string(failure.code),
                "provider": .string(provider.name), "detail": .string(detail),
            ])
        }
        if state.status == .streaming || Task.isCancelled && state.status != .failed && state.status != .blocked { state.status = .stopped }
        if let failure = state.failure { emit.yield(.error(failure)) }
        // `done` goes out after the turn is stored, and is stored with the other events.
        let done = TurnEvent.done(TurnSummary(
            turnID: plan.turnID, messageID: plan.replyMessage.id, status: state.status, text: state.text, citations: state.citations,
            flags: state.flags, groundedness: state.groundedness?.answer, verdicts: state.verdicts.map(\.verdict),
            // No category when nothing scored: a top category at 0 is only the first in the list.
            moderationCategory: state.moderation.flatMap { $0.needsCrisisResponse && !$0.blocks ? ModerationCategory.selfHarm.rawValue
                : $0.score($0.topCategory) > 0 ? $0.topCategory.rawValue : nil },
            model: state.model, elapsedSeconds: Date().timeIntervalSince(state.started), firstTokenSeconds: state.firstToken))
        emit.record(done)
        await Traced.span("finish") { span in
            await finish(&state, events: emit.sent)
            span.attributes[TraceAttribute.status] = state.status.rawValue
        }
        describe(state, on: span)
        emit.send(done)
        emit.finish()
    }

    /// The turn's outcome on its span: status, model, flag kinds, and a failed turn's code.
    private func describe(_ state: TurnState, on span: any Span) {
        guard span.isRecording else { return }
        span.updateAttributes { attributes in
            attributes[TraceAttribute.status] = state.status.rawValue
            attributes[TraceAttribute.genAIRequestModel] = state.model
            if !state.flags.isEmpty { attributes[TraceAttribute.flags] = state.flags.map(\.kind.rawValue) }
        }
        Traced.note("finish:\(state.status.rawValue)")
        if let failure = state.failure { Traced.fail(span, code: failure.code) }
    }

    // MARK: Stages

    /// Stages 1 and 2, on the preparation lane. What they recorded in `state` is kept when they
    /// fail, as it would be on the turn's own task. The database is read here first, on the
    /// turn's task (the index snapshot, the course and the profile): the lane's threads only
    /// compute, and never wait for a database, local or across the network.
    ///
    /// The `retrieve` span covers the reads on the turn's task and the search on the lane; the
    /// lane's threads do not inherit the turn's task-locals, so both stages name their parent
    /// and the lane's work is given the turn's tracer.
    private func prepare(_ plan: TurnPlan, state: inout TurnState) async throws -> ([CitationFinder.Source], AssembledContext) {
        let before = state
        let turn = ServiceContext.current ?? .topLevel
        let retrieving = Traced.start("retrieve", context: turn)
        let (searcher, course, profile, sourced) = try await Traced.continuing(retrieving, ending: false) { _ in
            let searcher = try await engine.archive.searcher()
            let course = try await plan.request.courseID.asyncFlatMap { try await engine.chats.course(id: $0) }
            let profile = try await engine.chats.profile(userID: plan.thread.userID)
            // An assistant's own source may read a database or files: here, not on the lane.
            var sourced: SourcedContext?
            if case .source(let source) = plan.assistant.retrieval {
                sourced = try await source.passages(for: plan.request)
                try Task.checkCancellation()
            }
            // The question's vector, made with the other waiting turns' in one encoder pass; the
            // search below finds it ready.
            if let batcher = engine.queryEmbeddings, case .stories = plan.assistant.retrieval, plan.template.retrieval.k > 0,
               plan.template.retrieval.mode != "bm25", plan.request.pinnedPassages == nil, case let query = Self.retrievalQuery(plan), !query.isEmpty {
                await batcher.embed(query)
                try Task.checkCancellation()
            }
            return (searcher, course, profile, sourced)
        }
        // The lane's threads see neither the turn's span nor a tracer bound to the turn's task.
        let tracer = InstrumentationSystem.tracer
        let (after, outcome) = try await engine.preparation.run { [self] in
            var state = before
            let outcome = withTracer(tracer) { Result { () throws -> ([CitationFinder.Source], AssembledContext) in
                let sources = try Traced.continuing(retrieving, ending: true) { span in
                    let sources = try retrieve(plan, searcher: searcher, sourced: sourced, state: &state)
                    span.attributes[TraceAttribute.passages] = sources.count
                    Traced.note("retrieve:\(sources.count) passages")
                    return sources
                }
                let context = try Traced.span("assemble", context: turn) { span in
                    let context = try assemble(plan, sources: sources, images: sourced?.images ?? [], course: course, profile: profile,
                                               state: &state)
                    span.attributes[TraceAttribute.promptTokens] = context.ledger.promptTokens
                    span.attributes[TraceAttribute.droppedParts] = context.ledger.dropped.count
                    Traced.note("assemble:\(context.ledger.promptTokens) tokens")
                    return context
                }
                return (sources, context)
            } }
            return (state, outcome)
        }
        state = after
        return try outcome.get()
    }

    private func retrieve(_ plan: TurnPlan, searcher: ArchiveSearcher, sourced: SourcedContext?, state: inout TurnState) throws -> [CitationFinder.Source] {
        switch plan.assistant.retrieval {
        case .none: return []
        case .source: return sourced.map { Self.sources($0, state: &state) } ?? []
        case .stories: break
        }
        let policy = plan.template.retrieval
        guard policy.k > 0 else { return [] }
        let query = Self.retrievalQuery(plan)
        guard !query.isEmpty else { return [] }
        let settings = RetrievalSettings(
            mode: policy.mode == "bm25" ? .lexical : (policy.mode == "dense" ? .dense : .hybrid),
            fusion: policy.fusion == "rrf" ? .reciprocalRank(k: Float(policy.rrfK)) : .weighted(lexicalWeight: Float(policy.lexicalWeight)))
        let outcome: SearchOutcome
        if let pinned = plan.request.pinnedPassages?.prefix(policy.k) {
            // A replay on the snapshot's index: the passages the turn retrieved, in its order, as long
            // as the viewer may still see them.
            outcome = searcher.passages(pinned.map { (id: $0.passageID, score: Float($0.score)) }, filter: SearchFilter(viewer: plan.request.viewer))
        } else {
            outcome = try Self.perStory(query, searcher: searcher, viewer: plan.request.viewer, k: policy.k, settings: settings)
        }
        var stories: [String: GriotStories.Story] = [:]
        var sources: [CitationFinder.Source] = []
        for (index, result) in outcome.results.enumerated() {
            let storyID = result.passage.storyID
            if stories[storyID] == nil { stories[storyID] = searcher.story(id: storyID) }
            let story = stories[storyID]
            var people = story?.interviewees ?? []
            for name in (story?.people ?? []) + (story?.aiMetadata.people ?? []) where !people.contains(name) { people.append(name) }
            let grounding = GroundingPassage(
                number: index + 1, storyID: storyID, passageID: result.passage.id, storyTitle: result.storyTitle, people: people,
                places: story?.aiMetadata.places ?? [], speaker: result.passage.speaker, startSeconds: result.passage.startSeconds,
                text: result.passage.text, interviewees: story?.interviewees ?? [],
                speakerRuns: story.map { Self.speakerRuns(of: result.passage, in: $0) } ?? [], isArchive: story?.source != nil)
            sources.append(CitationFinder.Source(grounding: grounding, passage: result.passage, interviewee: story?.interviewees.first,
                                                 sourceType: story?.source.map { _ in "archive" } ?? "story", isPublic: story?.privacy == .public,
                                                 isPublicDomain: story?.publicDomain ?? false,
                                                 storyDescription: story?.description, storyDate: story?.creationDate))
            state.retrieved.append(TurnSnapshot.RetrievedPassage(
                number: index + 1, storyID: storyID, passageID: result.passage.id, score: Double(result.score),
                lexicalRank: result.lexical?.rank, lexicalScore: result.lexical.map { Double($0.score) },
                denseRank: result.dense?.rank, denseScore: result.dense.map { Double($0.score) }))
        }
        state.retrieval = "\(policy.mode) k=\(policy.k) fusion=\(settings.fusion)" + (plan.request.pinnedPassages != nil ? " pinned" : "")
        return sources
    }

    /// An assistant's own passages as the turn's numbered sources, in the order its source gave
    /// them: cited, checked and recorded in the snapshot as story passages are.
    static func sources(_ sourced: SourcedContext, state: inout TurnState) -> [CitationFinder.Source] {
        var sources: [CitationFinder.Source] = []
        for (index, given) in sourced.passages.enumerated() {
            var grounding = given
            grounding.number = index + 1
            let passage = Passage(id: grounding.passageID, storyID: grounding.storyID, ordinal: index, text: grounding.text, speaker: grounding.speaker,
                                  startSeconds: grounding.startSeconds, startOffset: 0, endOffset: grounding.text.unicodeScalars.count)
            sources.append(CitationFinder.Source(grounding: grounding, passage: passage, interviewee: grounding.interviewees.first,
                                                 sourceType: Self.sourcedType))
            state.retrieved.append(TurnSnapshot.RetrievedPassage(number: index + 1, storyID: grounding.storyID, passageID: grounding.passageID, score: 0))
        }
        state.retrieval = sourced.description
        return sources
    }

    /// The `source_type` of a citation of an assistant's own passage (a story's is `story` or `archive`).
    static let sourcedType = "source"

    /// What the turn searches for: the question, or for "/summary" alone what the thread was
    /// last about.
    static func retrievalQuery(_ plan: TurnPlan) -> String {
        plan.question.isEmpty ? plan.history.last(where: { $0.role == .user })?.content ?? "" : plan.question
    }

    /// The passages a turn is grounded in: the best passage of each story before a story's second
    /// (only the first story keeps two), so that a question several interviews answer has them
    /// all in the prompt rather than three passages of one; and, when the question names a
    /// place stories are filed under ("Columbus, Georgia"), the best passage of every such story
    /// the viewer may see first, so that an answer can list them all.
    /// Passages each story after the first may bring. One (the best passage per story) put more
    /// interviews in front of the responder but moved the demo set's answers off the passages it
    /// is gated on, so the setting stays at the rank order's own until that is tuned (issue 15).
    static let passagesPerStory = Int.max

    static func perStory(_ query: String, searcher: ArchiveSearcher, viewer: Viewer, k: Int, settings: RetrievalSettings) throws -> SearchOutcome {
        let filter = SearchFilter(viewer: viewer)
        let places = PlaceMention.candidates(in: query)
        // The common turn names no place and keeps the rank order: one search, not a wide one
        // thrown away (each search embeds the query; two doubled the time before the model
        // under the 1,000-chat load).
        if places.isEmpty, passagesPerStory == Int.max { return try searcher.search(query, filter: filter, k: k, settings: settings) }
        var chosen: [PassageResult] = []
        var perStory: [String: Int] = [:]
        for place in places {
            var placed = filter
            placed.places = [place]
            let found = try searcher.search(query, filter: placed, k: PlaceMention.storyLimit * 3, settings: settings)
            for result in found.results where perStory[result.passage.storyID] == nil && perStory.count < PlaceMention.storyLimit {
                perStory[result.passage.storyID] = 1
                chosen.append(result)
            }
            if !chosen.isEmpty { break }
        }
        if chosen.isEmpty, passagesPerStory == Int.max { return try searcher.search(query, filter: filter, k: k, settings: settings) }
        let wide = try searcher.search(query, filter: filter, k: k * 3, settings: settings)
        let limit = max(k, chosen.count)
        let first = wide.results.first?.passage.storyID
        for result in wide.results where chosen.count < limit {
            let story = result.passage.storyID
            let allowed = story == first ? 2 : Self.passagesPerStory
            guard perStory[story, default: 0] < allowed, !chosen.contains(where: { $0.passage.id == result.passage.id }) else { continue }
            perStory[story, default: 0] += 1
            chosen.append(result)
        }
        // Too few stories to fill k: the rest in rank order.
        for result in wide.results where chosen.count < limit && !chosen.contains(where: { $0.passage.id == result.passage.id }) {
            chosen.append(result)
        }
        return SearchOutcome(results: chosen, spellingExpansions: wide.spellingExpansions)
    }

    private func assemble(_ plan: TurnPlan, sources: [CitationFinder.Source], images: [String], course: CourseRecord?, profile: ProfileRecord?,
                          state: inout TurnState) throws -> AssembledContext {
        let families = plan.request.viewer.familyGroupIDs.sorted().map(Self.familyName)
        let values = [
            "assistant_name": plan.assistant.displayName,
            "today": ISO8601DateFormatter.string(from: engine.now(), timeZone: .current, formatOptions: [.withFullDate]),
            "user_name": plan.request.userName ?? profile?.displayName ?? "a family member",
            "role": plan.role ?? "",
            "course_title": course?.title ?? "",
            "language_name": "",
            "family_names": families.isEmpty ? "your" : "the " + families.joined(separator: " and "),
        ]
        let system = try plan.template.systemPrompt(role: plan.role, command: plan.command?.rawValue, language: plan.language, values: values)
        let history = plan.request.history ?? plan.history
            .filter { $0.deletedAt == nil && !$0.content.isEmpty && ($0.status == .complete || $0.status == .stopped) }
            .map { ChatMessage(role: $0.role == .user ? .user : .assistant, content: $0.content) }
        let question = plan.command.map { "/\($0.rawValue) \(plan.question)".trimmingCharacters(in: .whitespaces) } ?? plan.question
        let parts = ContextParts(
            systemPrompt: system,
            customInstructions: [course?.customInstructions ?? "", plan.request.clientInstructions ?? ""].filter { !$0.isEmpty }.joined(separator: "\n\n"),
            profileBio: profile?.bio ?? "",
            courseMetadata: course.map { [$0.title, $0.summary].filter { !$0.isEmpty }.joined(separator: "\n") } ?? "",
            passages: sources.map(\.grounding), history: history, question: question)
        let counter = try engine.counters.counter(for: plan.template.model.encoding)
        var context = try ContextAssembler(counter: counter, budget: plan.template.budget).assemble(parts)
        // The source's images are shown with the user's message, the last one.
        if !images.isEmpty, let question = context.messages.indices.last { context.messages[question].images = images }
        state.ledger = context.ledger
        state.systemPrompt = system
        state.instructions = parts.customInstructions
        return context
    }

    private func generate(_ plan: TurnPlan, context: AssembledContext, finder: CitationFinder, state: inout TurnState,
                          emit: TurnEmitter) async throws {
        let counter = try engine.counters.counter(for: plan.template.model.encoding)
        let request = ChatRequest(
            messages: context.messages, settings: Self.settings(plan),
            grounding: Grounding(assistant: plan.template.assistant, question: plan.question, passages: context.passages,
                                 command: plan.command?.rawValue, language: plan.language))
        // The provider calls the regrouping in the task that reads the model's connection: a token
        // crosses no task boundary between the model's stream and the delta it ends up in.
        let echo = PromptEcho(instructions: [state.systemPrompt, state.instructions], passages: context.passages)
        let gate = try await outputGate(plan, sources: context.passages.map(\.text),
                                        publicPassages: finder.sources.values.filter(\.isPublic).map(\.passage.text), echo: echo)
        state.sharedKeys = gate.shared
        // What the provider sends is recorded (a cassette) so that a replay can play it back.
        state.recording = RecordedReply(recording: request, provider: plan.provider.name)
        let regrouping = DeltaRegrouping(state: state, finder: finder, counter: counter, gate: gate,
                                         checkCitations: plan.template.safety.contains(.citations),
                                         tokenLimit: plan.request.maxReplyTokens ?? Self.replyTokenLimit(request.settings.maxTokens),
                                         stop: plan.request.stop, emit: emit) { [checkpoints = engine.checkpoints] text, releasedAt in
            checkpoints.save(messageID: plan.replyMessage.id, text: text, releasedAt: [releasedAt])
        }
        // Held text is checked and sent however the reply ends, so what is stored is what was sent.
        defer {
            regrouping.releasePending()
            state = regrouping.state
        }
        do {
            // In a child task, so that a reply stopped at its token limit stops that task alone;
            // the model's tokens still reach the regrouping in the task that reads them.
            try await withThrowingTaskGroup(of: Void.self) { [provider = plan.provider] group in
                group.addTask { [model = state.model, prompt = context.ledger.promptTokens] in
                    try await reply(plan, request: request, from: provider, model: model, into: regrouping) {
                        TokenUsage(promptTokens: prompt, completionTokens: counter.count(regrouping.state.modelText))
                    }
                }
                try await group.waitForAll()
            }
            if !regrouping.isTruncated { regrouping.recordingComplete() }
        } catch is CancellationError where regrouping.isTruncated && !Task.isCancelled {
            // The reply ran past its token limit and its reading was stopped (not the turn): what
            // came within the limit is the reply, flagged as cut off.
        }
    }

    /// The reply's events into the regrouping, from whichever writes it: offline, the assistant's
    /// composer (bound around the offline responder's call, see `OfflineComposition`); for an
    /// assistant with a reply format, the model's whole reply rendered (`FormattedReply`); else the
    /// model's stream as it comes. An assistant that falls back when the model is down (breaker
    /// open, retries spent) has its composer answer when the model failed before any text.
    private func reply(_ plan: TurnPlan, request: ChatRequest, from provider: any ChatProvider, model: String, into regrouping: DeltaRegrouping,
                       countedUsage: @escaping @Sendable () -> TokenUsage?) async throws {
        if let composer = plan.composer {
            try await OfflineComposition.$composer.withValue(composer) {
                try await provider.generateTraced(request, model: model, into: regrouping.receive, countedUsage: countedUsage)
            }
            return
        }
        do {
            if let format = plan.assistant.replyFormat {
                let recording = try await FormattedReply(format: format, provider: provider)
                    .generate(request, model: model, into: regrouping.receive, countedUsage: countedUsage)
                regrouping.record(recording)
            } else {
                try await provider.generateTraced(request, model: model, into: regrouping.receive, countedUsage: countedUsage)
            }
        } catch let error as ProviderError where plan.assistant.fallsBackWhenDown && plan.assistant.offline != nil && regrouping.state.modelText.isEmpty {
            let composer = plan.assistant.offline!
            Self.log.warning("model unavailable; the assistant's offline composer answers", metadata: [
                "turn_id": .string(plan.turnID), "provider": .string(provider.name), "composer": .string(composer.modelName),
                "detail": .string(error.redactedDescription),
            ])
            let offline = ExtractiveResponder()
            regrouping.fallBack(model: composer.modelName, recording: RecordedReply(recording: request, provider: offline.name))
            try await OfflineComposition.$composer.withValue(composer) {
                try await offline.generateTraced(request, model: composer.modelName, into: regrouping.receive, countedUsage: countedUsage)
            }
        }
    }

    /// What a failed turn's client is told to do, with the id that finds its log line.
    static func askSupport(_ plan: TurnPlan) -> String {
        "Try again in a moment; if it keeps failing, give support the request id \(plan.request.requestID ?? plan.turnID)."
    }

    /// The most reply tokens read from a model before its stream is stopped: the `max_tokens`
    /// the request asked for, plus a quarter (at least 64) for servers that count differently.
    /// A server that ignores `max_tokens` (or sends one 300 kB chunk) costs no more than this.
    static func replyTokenLimit(_ maxTokens: Int?) -> Int? {
        guard let maxTokens, maxTokens > 0 else { return nil }
        let (limit, overflow) = maxTokens.addingReportingOverflow(max(64, maxTokens / 4))
        return overflow ? Int.max : limit
    }

    // MARK: Safety stages

    enum Screening {
        case proceed
        case blocked
        case crisis(MessageGate.CrisisReply)

        /// The decision's name, for the `screen` span and the trail.
        var kind: String {
            switch self {
            case .proceed: "allow"
            case .blocked: "block"
            case .crisis: "crisis"
            }
        }
    }

    /// Stage 0, the `MessageGate` every user text passes (an edit passes the same one), and what
    /// follows from it: every moderated message leaves a `message.moderate` audit entry with its
    /// scores; a blocked one is marked `blocked` and counted as a warning, and nothing reaches the
    /// model. Only a message the gate allowed names an untitled thread.
    private func screen(_ plan: TurnPlan, state: inout TurnState) async throws -> Screening {
        let gate = MessageGate(engine: engine)
        let screening = await gate.screen(plan.userMessage.content, voice: plan.request.voice, stages: plan.template.safety)
        try Task.checkCancellation()
        if screening.screened {
            state.moderation = screening.moderation
            for verdict in screening.verdicts { state.record(verdict, messageID: plan.userMessage.id) }
            let decision: SafetyDecision = switch screening.decision {
            case .block: .block
            case .crisis: .route
            case .allow: .allow
            }
            try await engine.chats.recordModeration(messageID: plan.userMessage.id, moderation: screening.moderationJSON,
                                              decision: decision.rawValue, blocked: screening.decision == .block)
        }
        switch screening.decision {
        case .allow:
            if plan.thread.title.isEmpty { try await engine.chats.nameThread(id: plan.thread.id, from: plan.userMessage.content) }
            return .proceed
        case .block:
            state.status = .blocked
            state.failure = try await gate.refuse(userID: plan.thread.userID)
            return .blocked
        case .crisis:
            // Never improvise here: without the template the turn fails and says so.
            return .crisis(try await gate.crisisReply(assistant: plan.assistant, userID: plan.thread.userID, userName: plan.request.userName,
                                                selfHarm: screening.moderation.selfHarm))
        }
    }

    /// The crisis template as the reply, with the flag a coaching UI uses to bring in a coach.
    /// No model is called and no passage is retrieved.
    private func respondToCrisis(_ plan: TurnPlan, reply: MessageGate.CrisisReply, state: inout TurnState, emit: TurnEmitter) throws {
        state.raise(reply.flag, emit: emit)
        state.model = reply.model
        state.firstToken = Date().timeIntervalSince(state.started)
        state.text = reply.text
        emit.yield(.delta(reply.text))
        state.status = .complete
    }

    /// The gate the reply passes through before it is sent: the echo stage always, PII scrubbing
    /// and output moderation when the assistant has them. Checking citations needs whole
    /// sentences too (a sentence whose citation fails is held back or marked before it is sent).
    ///
    /// Public archival text: a value written in a passage of a public story the turn retrieved
    /// (a 1930s street address in a WPA narrative) is left as written, like a value the user
    /// shared: anyone may read that passage, so showing it leaks nothing, and masking it broke
    /// the quotes the answer was built on. Values of family-only and private stories are masked.
    private func outputGate(_ plan: TurnPlan, sources: [String], publicPassages: [String], echo: PromptEcho) async throws -> OutputGate {
        let stages = plan.template.safety
        var scrubber: PIIScrubber?
        var shared = Set<String>()
        if stages.contains(.pii) {
            guard let tools = engine.safety.scrubber else {
                throw TurnStageFailure(code: "internal_error", message: "The PII scrubber could not start (PCRE2), so no reply is sent; install libpcre2 and restart.")
            }
            scrubber = tools
            // What the user wrote anywhere in this thread is theirs to see again: the whole thread,
            // not only the messages in the model's window, because a value the user wrote two
            // hundred messages ago is no less theirs (and a reply can carry it from a summary or
            // a passage). A message the user deleted no longer counts: they took it back.
            shared = tools.sharedKeys(in: plan.userMessage.content)
            for text in try await engine.chats.userTexts(threadID: plan.thread.id) { shared.formUnion(tools.sharedKeys(in: text)) }
            for passage in publicPassages { shared.formUnion(tools.sharedKeys(in: passage)) }
        }
        let screen = plan.assistant.sentenceScreen.map { screen in { @Sendable [request = plan.request] (sentence: String) in screen.blocks(sentence, in: request) } }
        return OutputGate(scrubber: scrubber, shared: shared, moderator: stages.contains(.moderation) ? engine.safety.local : nil,
                          sources: sources, echo: echo, screen: stages.contains(.moderation) ? screen : nil)
    }

    /// Stage 4: checks of the whole answer once it is complete: groundedness against the passages
    /// the model saw ("AI may be inaccurate" below 0.4) and copyright similarity (long runs
    /// copied from a passage, for coach review; passages numbered in `publicDomain` are nobody's
    /// to copy and are not compared). Runs on the preparation lane: it embeds text.
    private func review(_ plan: TurnPlan, context: AssembledContext, publicDomain: Set<Int>, state: inout TurnState,
                        emit: TurnEmitter) async throws {
        let stages = plan.template.safety
        let text = state.text
        // Groundedness reads what the model wrote, before masking: a masked value ("[PHONE]")
        // would read as a name no passage has; without the lines the echo stage withheld, which
        // no one reads. Copyright judges what the user received.
        let written = state.answerText ?? (state.modelText.isEmpty ? text : state.modelText)
        let unsupportedClaims = state.unsupportedClaims
        let check = plan.assistant.replyCheck
        guard !text.isEmpty, check != nil || stages.contains(.groundedness) || stages.contains(.copyright) else { return }
        let passages = context.passages.map(\.text)
        let described = context.passages.map { passage in
            ([passage.storyTitle, (passage.interviewees + passage.people).joined(separator: ", "), passage.places.joined(separator: ", ")]
                .filter { !$0.isEmpty } + [passage.text]).joined(separator: "\n")
        }
        let question = plan.question
        // An assistant that retrieves nothing (the coach) has no passages to be grounded in; a
        // retrieving one that found nothing is judged against nothing, and flagged if it claims.
        // An assistant's own check replaces groundedness for it.
        let retrieves = switch plan.assistant.retrieval {
        case .none: false
        case .stories: plan.template.retrieval.k > 0
        case .source: true
        }
        let grounding = check == nil && stages.contains(.groundedness) && retrieves ? GroundednessStage(scorer: engine.safety.groundedness) : nil
        let copying = stages.contains(.copyright) ? CopyrightStage(check: engine.safety.copyright) : nil
        let given = Grounding(assistant: plan.template.assistant, question: question, passages: context.passages,
                              command: plan.command?.rawValue, language: plan.language)
        let (grounded, copied, problem) = try await engine.preparation.run {
            (grounding?.review(answer: written, passages: described, question: question, unsupportedClaims: unsupportedClaims),
             copying?.review(answer: text, passages: passages, skipping: Set(context.passages.indices.filter { publicDomain.contains(context.passages[$0].number) })),
             check.map { $0.problem(in: written, grounding: given) })
        }
        if let checked = problem {
            state.record(SafetyVerdict(stage: "reply_check", score: checked == nil ? 1 : 0, decision: checked == nil ? .allow : .flag,
                                       reason: checked ?? "the reply passed the assistant's check"), messageID: plan.replyMessage.id)
            if let checked { state.raise(SafetyFlag(kind: .replyCheck, message: checked), emit: emit) }
        }
        if let grounded {
            state.groundedness = grounded.score
            state.record(grounded.verdict, messageID: plan.replyMessage.id)
            if let flag = grounded.flag { state.raise(flag, emit: emit) }
        }
        if let copied {
            state.record(copied.verdict, messageID: plan.replyMessage.id)
            if let flag = copied.flag { state.raise(flag, emit: emit) }
        }
    }

    /// The model settings the provider is given: the prompt's, with a replay's model instead,
    /// and what an OpenAI client asked for (temperature, a smaller reply, stop sequences).
    static func settings(_ plan: TurnPlan) -> ModelSettings {
        var settings = plan.template.model.settings(maxTokens: plan.template.budget.replyReserve)
        if let model = plan.request.model { settings.model = model }
        if let temperature = plan.request.temperature { settings.temperature = temperature }
        if let limit = plan.request.maxReplyTokens { settings.maxTokens = min(settings.maxTokens ?? limit, limit) }
        if !plan.request.stop.isEmpty { settings.stop = plan.request.stop }
        settings.user = plan.request.endUser
        return settings
    }

    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    // MARK: Storing

    private func finish(_ state: inout TurnState, events: [TurnSnapshot.SentEvent]) async {
        state.events = events
        // The recording is the model's raw text: what the gate masked is masked in it too.
        if state.plan.template.safety.contains(.pii), let shared = state.sharedKeys, let scrubber = engine.safety.scrubber {
            state.recording = state.recording?.maskingPersonalData(with: scrubber, keeping: shared)
        }
        state.finished = Date()
        let unsaved = await engine.checkpoints.close(messageID: state.plan.replyMessage.id)
        let output = state.verdicts.filter { $0.verdict.stage != "moderation" && $0.verdict.stage != "crisis" }.map(\.verdict)
        try? await engine.chats.finishMessage(id: state.plan.replyMessage.id, content: state.text, status: state.status,
                                        error: state.failure?.message, moderation: output.isEmpty ? nil : Self.json(output))
        engine.checkpoints.stored(releasedAt: unsaved)
        try? await saveTurn(&state, status: state.status)
        let plan = state.plan
        let at = state.finished ?? Date()
        try? await engine.chats.recordVerdicts(state.verdicts.map { entry in
            SafetyVerdictRecord(at: at, turnID: plan.turnID, threadID: plan.thread.id, messageID: entry.messageID, userID: plan.thread.userID,
                                ipHash: nil, stage: entry.verdict.stage, score: entry.verdict.score, decision: entry.verdict.decision.rawValue,
                                reason: entry.verdict.reason)
        })
    }

    private func saveTurn(_ state: inout TurnState, status: MessageStatus) async throws {
        let plan = state.plan
        let indexPassages = try? await engine.archive.indexedPassageCount()
        let snapshot = TurnSnapshot(
            assistant: plan.template.assistant, promptVersion: plan.template.version, promptHash: plan.template.textHash,
            promptLabel: plan.request.promptLabel, role: plan.role, command: plan.command?.rawValue,
            language: plan.language, languageConfidence: plan.languageGuess.confidence, provider: plan.provider.name,
            model: state.model, upstreamModel: state.upstreamModel, settings: Self.settings(plan),
            retrieval: state.retrieval, indexPassages: indexPassages, indexVersion: state.indexVersion,
            passages: state.retrieved,
            ledger: state.ledger, citations: state.citations, text: state.text, failure: state.failure, usage: state.usage,
            firstTokenSeconds: state.firstToken, safety: state.verdicts.map(\.verdict), flags: state.flags,
            groundedness: state.groundedness?.answer, viewerUser: plan.request.viewer.userID,
            viewerFamilies: plan.request.viewer.familyGroupIDs.sorted(), courseID: plan.request.courseID, userName: plan.request.userName,
            voice: plan.request.voice,
            question: plan.userMessage.content, status: status, events: state.events.isEmpty ? nil : state.events, recording: state.recording)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let json = String(decoding: try encoder.encode(snapshot), as: UTF8.self)
        try await engine.chats.saveTurn(TurnRecord(
            id: plan.turnID, threadID: plan.thread.id, userMessageID: plan.userMessage.id, assistantMessageID: plan.replyMessage.id,
            assistant: plan.template.assistant, promptVersion: plan.template.version, promptHash: plan.template.textHash,
            provider: plan.provider.name, model: state.model, status: status, startedAt: state.started, finishedAt: state.finished,
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
        // Only the last 12 characters are read: a "[" further back is no marker being written,
        // and this runs for every word of a long reply.
        let tail = text.suffix(12)
        guard let open = tail.lastIndex(of: "[") else { return false }
        return !tail[open...].contains("]")
    }

    /// "fam-carter" → "Carter": family group ids as a prompt can say them.
    static func familyName(_ id: String) -> String {
        let bare = id.hasPrefix("fam-") ? String(id.dropFirst(4)) : id
        return bare.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }
}

/// Stage 3's regrouping of the model's text into deltas of about `TurnPipeline.deltaTokens`
/// tokens (the first text at once), with a citation event as each marker appears, and the text
/// sent so far handed to `ReplyCheckpoints` with every delta, so what a client has seen is
/// stored within a fraction of a second however long the next sentence takes to pass the gate
/// (saving on a half-second clock checked as tokens arrived left a short first sentence
/// unsaved for as long as the gate held the long one after it). With an `OutputGate`, the
/// model's text reaches the regrouping only as whole, checked sentences, and only that text is
/// ever sent or stored. Events come one at a time from the provider's reading task; the lock
/// is never contended.
final class DeltaRegrouping: Sendable {
    private struct Progress {
        var state: TurnState
        var gate: OutputGate?
        var pending = ""
        var released = false
        /// Numbers whose citation event is sent or waiting to be.
        var cited = Set<Int>()
        var flagged = Set<String>()
        var dropped: [String] = []
        var outOfRange = Set<Int>()
        var unsupported: [Int] = []
        /// Numbers cited by a line that copies its passage instead of using it (`CitationFinder.Check.copied`).
        var copied = Set<Int>()
        var verified = 0
        /// Bytes of `state.text` sent in deltas so far.
        var sentBytes = 0
        /// Citations waiting for their marker to be sent, with the byte offset just after it.
        var waiting: [(citation: Citation, at: Int)] = []
        /// Tokens of the model's text at its last exact count, and bytes received since.
        var receivedTokens = 0
        var uncountedBytes = 0
        /// The reply reached `tokenLimit`, or a stop sequence: the rest of the model's stream is not read.
        var truncated = false
        /// The client's stop sequences (`TurnRequest.stop`).
        var stops: StopSequenceCutter?
    }

    private let progress: Mutex<Progress>
    private let finder: CitationFinder
    private let counter: any TokenCounter
    private let checkCitations: Bool
    /// See `TurnPipeline.replyTokenLimit`; nil reads the whole reply.
    private let tokenLimit: Int?
    private let emit: TurnEmitter
    /// Receives the text sent so far and when its newest delta was sent, after every delta.
    private let flush: @Sendable (String, ContinuousClock.Instant) -> Void

    init(state: TurnState, finder: CitationFinder, counter: any TokenCounter, gate: OutputGate? = nil, checkCitations: Bool = false,
         tokenLimit: Int? = nil, stop: [String] = [], emit: TurnEmitter, flush: @escaping @Sendable (String, ContinuousClock.Instant) -> Void) {
        progress = Mutex(Progress(state: state, gate: gate, stops: StopSequenceCutter(stop)))
        self.finder = finder
        self.counter = counter
        self.checkCitations = checkCitations
        self.tokenLimit = tokenLimit
        self.emit = emit
        self.flush = flush
    }

    /// The turn's state with the text, citations and usage received so far.
    var state: TurnState { progress.withLock { $0.state } }

    /// Whether the reply reached its token limit and the rest of the stream was left unread.
    var isTruncated: Bool { progress.withLock { $0.truncated } }

    @Sendable func receive(_ event: ProviderEvent) {
        let reachedLimit = progress.withLock { progress -> Bool in
            guard !progress.truncated else { return false }
            guard progress.stops != nil else { return take(event, &progress) }
            switch event {
            case .text(let piece):
                let (text, reached) = progress.stops!.feed(piece)
                if !text.isEmpty, take(.text(text), &progress) { return true }
                // The reply ends at the stop sequence, as complete as if the model had stopped there.
                if reached { progress.truncated = true }
                return progress.truncated
            case .finished:
                let held = progress.stops!.finish()
                if !held.isEmpty, take(.text(held), &progress) { return true }
                return take(event, &progress)
            case .model:
                return take(event, &progress)
            }
        }
        // Stop reading the model: its stream runs in this task (or one it waits for), and
        // `TurnPipeline.generate` tells this stop from the turn's own by `isTruncated`.
        if reachedLimit { withUnsafeCurrentTask { $0?.cancel() } }
    }

    /// One event of the model's stream, within the token limit; true once the limit is reached.
    private func take(_ event: ProviderEvent, _ progress: inout Progress) -> Bool {
        var event = event
        if case .text(let whole) = event, let tokenLimit {
            let piece = bounded(whole, limit: tokenLimit, &progress)
            guard !piece.isEmpty else { return progress.truncated }
            event = .text(piece)
        }
        progress.state.recording?.events.append(event)
        switch event {
        case .model(let model):
            progress.state.upstreamModel = model
        case .text(let piece):
            if progress.state.firstToken == nil { progress.state.firstToken = Date().timeIntervalSince(progress.state.started) }
            progress.state.modelText += piece
            if progress.gate != nil {
                if let checked = progress.gate!.feed(piece) { accept(checked, &progress) }
            } else {
                accept(piece, &progress)
            }
        case .finished(_, let usage):
            progress.state.usage = usage
        }
        return progress.truncated
    }

    /// The part of `piece` that fits under `limit` tokens of the model's text; marks the reply
    /// truncated (and flags it) when the limit is reached. The count is exact where it matters
    /// and cheap elsewhere: a token is at least one byte, so while the last exact count plus the
    /// bytes since cannot pass the limit, nothing is counted; past that the whole text is
    /// counted again (a few times a reply, each on at most 16 bytes a token). A piece that would
    /// take the text past 16 bytes a token (a server sending 300 kB at once) is cut first.
    private func bounded(_ piece: String, limit: Int, _ progress: inout Progress) -> String {
        let before = progress.state.modelText
        let ceiling = limit.multipliedReportingOverflow(by: 16)
        let roomBytes = ceiling.overflow ? Int.max : max(0, ceiling.partialValue - before.utf8.count)
        var kept = piece
        var cut = false
        if piece.utf8.count > roomBytes {
            kept = Self.prefix(piece, bytes: roomBytes)
            cut = true
        }
        progress.uncountedBytes += kept.utf8.count
        if cut || progress.receivedTokens + progress.uncountedBytes > limit {
            progress.receivedTokens = counter.count(before + kept)
            progress.uncountedBytes = 0
            if progress.receivedTokens > limit {
                // The longest prefix of the piece that keeps the text within the limit.
                let characters = Array(kept)
                var low = 0, high = characters.count
                while low < high {
                    let middle = (low + high + 1) / 2
                    if counter.count(before + String(characters[..<middle])) <= limit { low = middle } else { high = middle - 1 }
                }
                kept = String(characters[..<low])
                cut = true
            }
        }
        guard cut else { return kept }
        progress.receivedTokens = limit
        progress.truncated = true
        progress.state.raise(SafetyFlag(kind: .truncated, message: "The reply reached its length limit (\(limit) tokens) and was cut off there."), emit: emit)
        return kept
    }

    /// The longest prefix of `text` of at most `bytes` UTF-8 bytes that ends on a scalar boundary.
    private static func prefix(_ text: String, bytes: Int) -> String {
        var used = 0
        var end = text.unicodeScalars.startIndex
        for scalar in text.unicodeScalars {
            used += UTF8.width(scalar)
            if used > bytes { break }
            end = text.unicodeScalars.index(after: end)
        }
        return String(text.unicodeScalars[..<end])
    }

    /// The reply's recording in place of the one kept so far: a formatted reply keeps the
    /// model's raw reply, not the rendered text the regrouping was given.
    func record(_ recording: RecordedReply) {
        progress.withLock { $0.state.recording = recording }
    }

    /// The model failed before any text and the assistant's offline composer answers instead:
    /// the turn is recorded as the composer's, under its model name.
    func fallBack(model: String, recording: RecordedReply) {
        progress.withLock { progress in
            progress.state.model = model
            progress.state.upstreamModel = nil
            progress.state.recording = recording
        }
    }

    /// The provider's reply ended normally: its recording may be played back.
    func recordingComplete() {
        progress.withLock { $0.state.recording?.complete = true }
    }

    /// Checks and sends what is held back (the reply has ended, or was stopped), and records
    /// the output stages' verdicts.
    func releasePending() {
        progress.withLock { progress in
            // A reply that ended without a stop sequence: the end held back in case it began one.
            if let held = progress.stops?.finish(), !held.isEmpty, !progress.truncated { _ = take(.text(held), &progress) }
            if let checked = progress.gate?.finish() { accept(checked, &progress) }
            if let gate = progress.gate, let echo = gate.echo, !echo.findings.isEmpty {
                progress.state.answerText = gate.written
                // Nothing of the reply was left: the client is told why in the reply itself.
                if !progress.state.text.contains(where: { $0.isLetter || $0.isNumber }) { accept(Self.echoedReply, &progress) }
            }
            release(&progress)
            for waiting in progress.waiting {
                progress.state.citations.append(waiting.citation)
                emit.yield(.citation(waiting.citation))
            }
            progress.waiting = []
            recordVerdicts(&progress)
        }
    }

    static let echoedReply = "[The reply only repeated the assistant's instructions or its sources, so it was left out. Try asking again.]"

    /// Text that may be sent: added to the reply, and sent once enough has gathered.
    private func accept(_ text: String, _ progress: inout Progress) {
        if let gate = progress.gate, !gate.masked.isEmpty, !progress.flagged.contains("pii") {
            progress.flagged.insert("pii")
            progress.state.raise(SafetyFlag(kind: .piiMasked, message: "Personal details (a phone number, an address, ...) in the reply were masked."), emit: emit)
        }
        if let gate = progress.gate, gate.removedSentences > 0, !progress.flagged.contains("moderation") {
            progress.flagged.insert("moderation")
            progress.state.raise(SafetyFlag(kind: .outputModeration, message: "A sentence of the reply broke the content policy and was removed.",
                                            score: gate.worstToxicity), emit: emit)
        }
        if let echo = progress.gate?.echo, !echo.findings.isEmpty, progress.flagged.insert("echo").inserted {
            progress.state.raise(SafetyFlag(kind: .promptEcho,
                                            message: "Part of the reply repeated the assistant's instructions or its sources word for word instead of answering; it was left out."),
                                 emit: emit)
        }
        let text = reviewCitations(text, &progress)
        progress.state.text += text
        progress.pending += text
        // The first text goes out at once (waiting for 20 tokens would hold the first words back
        // 20 token intervals); whole citation markers stay in one delta, so a client never sees
        // "[1" alone. Fewer bytes than `deltaTokens` cannot be that many tokens, so they are not counted.
        guard !TurnPipeline.endsInsideMarker(progress.pending) else { return }
        if !progress.released {
            release(&progress)
            return
        }
        guard progress.pending.utf8.count >= TurnPipeline.deltaTokens else { return }
        let tokens = counter.count(progress.pending)
        if tokens > 2 * TurnPipeline.deltaTokens {
            // A whole checked sentence can be long: it goes out in slices of about 20 tokens.
            sliceLongPending(&progress)
        } else if tokens >= TurnPipeline.deltaTokens {
            release(&progress)
        }
    }

    /// Sends `pending` in deltas of at least `deltaTokens` tokens, cut after white space and
    /// never inside a marker; a remainder under `deltaTokens` tokens waits for more text.
    private func sliceLongPending(_ progress: inout Progress) {
        var rest = Substring(progress.pending)
        // Whether more than 40 tokens are left, read from the first 2,000 characters only: the
        // whole rest counted for every slice made a long sentence quadratic.
        while counter.count(String(rest.prefix(2_000))) > 2 * TurnPipeline.deltaTokens {
            var cut: Substring.Index?
            var index = rest.startIndex
            while let space = rest[index...].firstIndex(where: \.isWhitespace) {
                let end = rest.index(after: space)
                let head = rest[..<end]
                if counter.count(String(head)) >= TurnPipeline.deltaTokens, !TurnPipeline.endsInsideMarker(String(head)) {
                    cut = end
                    break
                }
                index = end
            }
            guard let cut else { break }
            progress.pending = String(rest[..<cut])
            release(&progress)
            rest = rest[cut...]
        }
        progress.pending = String(rest)
        if counter.count(progress.pending) >= TurnPipeline.deltaTokens { release(&progress) }
    }

    private func release(_ progress: inout Progress) {
        guard !progress.pending.isEmpty else { return }
        emit.yield(.delta(progress.pending))
        let sentAt = ContinuousClock.now
        progress.sentBytes += progress.pending.utf8.count
        progress.pending = ""
        progress.released = true
        // What the client has now seen: the reply's text up to the end of this delta.
        flush(String(decoding: progress.state.text.utf8.prefix(progress.sentBytes), as: UTF8.self), sentAt)
        // A citation goes out once the text with its marker has.
        while let first = progress.waiting.first, first.at <= progress.sentBytes {
            progress.waiting.removeFirst()
            progress.state.citations.append(first.citation)
            emit.yield(.citation(first.citation))
        }
    }

    /// Checks each cited sentence of `text` (checked text about to be added to the reply)
    /// against the passage it cites, before any of it is sent. A supported sentence's citation
    /// waits for its marker to go out; an unsupported one's goes out without a quote, flagged.
    /// A sentence whose quote is not in its passage is held back (a note says so); a marker
    /// naming no passage is replaced by "[unverified]" (by the numbers that exist, in a list).
    /// The sentence is read as the user sees it, masks left out of its facts.
    private func reviewCitations(_ text: String, _ progress: inout Progress) -> String {
        // Only markers in the new text are checked: without a "[" there is nothing to do.
        guard text.utf8.contains(UInt8(ascii: "[")) else { return text }
        let sentBefore = progress.state.text.utf8.count
        // A claim reaches back to the start of its sentence, so the reply before the last 4 kB
        // (or its last line break) is not read again; it was read whole for every chunk, which
        // made a long reply quadratic (100 kB took 47 s).
        let base = Self.claimContext(progress.state.text)
        let combined = String(base) + text
        let chunkStart = combined.utf8.index(combined.startIndex, offsetBy: base.utf8.count)
        var edits: [(range: Range<String.Index>, replacement: String)] = []
        let markers = finder.markers(in: combined).filter { $0.open >= chunkStart }
        var withheld: Range<String.Index>?
        var rewritten = Set<String.Index>()
        var ready: [Citation] = []
        for marker in markers {
            if let withheld, withheld.contains(marker.open) { continue }
            let claimRange = CitationFinder.claimRange(before: marker.open, in: combined)
            let claim = String(combined[claimRange]).trimmingCharacters(in: .whitespaces)
            switch finder.check(number: marker.number, claim: claim) {
            case .verified(let citation):
                progress.verified += 1
                guard progress.cited.insert(marker.number).inserted else { continue }
                ready.append(masked(citation, progress))
            case .unsupported(let citation, let problems):
                guard checkCitations else { continue }
                progress.unsupported.append(marker.number)
                progress.state.unsupportedClaims += 1
                if progress.cited.insert(marker.number).inserted { ready.append(citation) }
                if progress.flagged.insert("unsupported-\(marker.number)").inserted {
                    progress.state.raise(SafetyFlag(kind: .citationUnsupported,
                                                    message: "A sentence citing [\(marker.number)] says what that passage does not (\(problems.joined(separator: "; "))); its citation carries no quote."),
                                         emit: emit)
                }
            case .fabricatedQuote(let number, let quote):
                guard checkCitations else { continue }
                progress.dropped.append("[\(number)]")
                progress.state.unsupportedClaims += 1
                progress.state.raise(SafetyFlag(kind: .citationDropped,
                                                message: "A sentence citing [\(number)] was left out: its quote (\(quote.count) characters) is not in the passage it names."),
                                     emit: emit)
                if claimRange.lowerBound >= chunkStart {
                    let end = Self.sentenceEnd(after: marker.close, in: combined)
                    edits.removeAll { claimRange.lowerBound..<end ~= $0.range.lowerBound }
                    edits.append((claimRange.lowerBound..<end, Self.withheldSentence))
                    withheld = claimRange.lowerBound..<end
                } else if rewritten.insert(marker.open).inserted {
                    // The sentence began in text already sent: its marker is what can still be taken back.
                    edits.append((marker.open..<marker.close, "[unverified]"))
                }
            case .outOfRange(let number):
                guard checkCitations else { continue }
                progress.outOfRange.insert(number)
                progress.state.unsupportedClaims += 1
                progress.state.raise(SafetyFlag(kind: .citationOutOfRange,
                                                message: "The reply cites [\(number)], which is not one of the \(finder.sources.count) passages it was given; the marker is shown as [unverified]."),
                                     emit: emit)
                if rewritten.insert(marker.open).inserted {
                    let known = markers.filter { $0.open == marker.open && finder.sources[$0.number] != nil }.map { String($0.number) }
                    edits.append((marker.open..<marker.close, known.isEmpty ? "[unverified]" : "[\(known.joined(separator: ", "))]"))
                }
            case .unquotable(let number):
                progress.cited.insert(number)
            case .copied(let number):
                // The echo stage withholds such a line before it gets here; a copy is never verified.
                progress.copied.insert(number)
            }
        }
        var result = edits.isEmpty ? text : ""
        // Each citation goes out once the text that holds its marker has (the text is a sentence).
        defer { progress.waiting += ready.map { ($0, sentBefore + result.utf8.count) } }
        guard !edits.isEmpty else { return text }
        var position = chunkStart
        for edit in edits.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) where edit.range.lowerBound >= position {
            result += combined[position..<edit.range.lowerBound]
            result += edit.replacement
            position = edit.range.upperBound
        }
        result += combined[position...]
        return result
    }

    static let withheldSentence = "[A sentence was left out: the words it quotes are not in the story it cites.]"

    /// The end of the reply sent so far that a new marker's claim can reach: from its last line
    /// break (where `CitationFinder.claimRange` stops), and at most the last 4,096 bytes.
    static func claimContext(_ sent: String) -> Substring {
        let utf8 = sent.utf8
        var start = utf8.index(utf8.endIndex, offsetBy: -min(4_096, utf8.count))
        // Back to the first byte of a character (a UTF-8 continuation byte is 10xxxxxx).
        while start > utf8.startIndex, utf8[start] & 0xC0 == 0x80 { start = utf8.index(before: start) }
        if let newline = utf8[start...].lastIndex(of: UInt8(ascii: "\n")) { start = utf8.index(after: newline) }
        return sent[start...]
    }

    /// Just after the markers and the sentence end that follow a marker ("… porch” [1][2]." → after ".").
    private static func sentenceEnd(after close: String.Index, in text: String) -> String.Index {
        var end = close
        while end < text.endIndex {
            // The "]" is looked for only past digits, commas and spaces: a "[" with no marker
            // after it must not cost a search of the rest of the text.
            if text[end] == "[", let shut = text[text.index(after: end)...].firstIndex(where: { !($0.isNumber || $0 == "," || $0 == " ") }),
               text[shut] == "]" {
                end = text.index(after: shut)
            } else if ".!?".contains(text[end]) {
                end = text.index(after: end)
            } else {
                break
            }
        }
        return end
    }

    /// The citation with personal data masked in its quote as the gate masks the reply: values
    /// the user shared and values of public stories stay (see `TurnPipeline.outputGate`).
    private func masked(_ citation: Citation, _ progress: Progress) -> Citation {
        guard let gate = progress.gate, let scrubber = gate.scrubber, !citation.quote.isEmpty else { return citation }
        var citation = citation
        citation.quote = scrubber.scrub(citation.quote, keeping: gate.shared).0
        return citation
    }

    private func recordVerdicts(_ progress: inout Progress) {
        let reply = progress.state.plan.replyMessage.id
        if let gate = progress.gate {
            if gate.scrubber != nil {
                let counts = gate.masked.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) \($0.key.rawValue)" }
                progress.state.record(SafetyVerdict(
                    stage: "pii", score: gate.masked.isEmpty ? 0 : 1, decision: gate.masked.isEmpty ? .allow : .mask,
                    reason: (counts.isEmpty ? "nothing masked" : "masked " + counts.joined(separator: ", "))
                        + (gate.kept > 0 ? "; \(gate.kept) value\(gate.kept == 1 ? "" : "s") the user shared left as written" : "")), messageID: reply)
            }
            if gate.moderator != nil {
                progress.state.record(SafetyVerdict(
                    stage: "output_moderation", score: gate.worstToxicity, decision: gate.removedSentences > 0 ? .mask : .allow,
                    reason: gate.removedSentences > 0 ? "\(gate.removedSentences) sentence(s) removed" : "every sentence within policy"), messageID: reply)
            }
            if let echo = gate.echo { progress.state.record(echo.verdict, messageID: reply) }
        }
        if checkCitations {
            let problems = progress.dropped.count + progress.outOfRange.count + progress.unsupported.count
            var reason = "\(progress.verified) verified"
            if !progress.unsupported.isEmpty {
                reason += "; unsupported by the passage they cite: " + progress.unsupported.map { "[\($0)]" }.joined(separator: ", ")
            }
            if !progress.dropped.isEmpty { reason += "; dropped \(progress.dropped.joined(separator: ", ")) (quote not in passage)" }
            if !progress.outOfRange.isEmpty { reason += "; cited outside the passages: " + progress.outOfRange.sorted().map { "[\($0)]" }.joined(separator: ", ") }
            if !progress.copied.isEmpty { reason += "; not counted, the cited line copies its passage: " + progress.copied.sorted().map { "[\($0)]" }.joined(separator: ", ") }
            progress.state.record(SafetyVerdict(
                stage: "citations", score: progress.verified + problems == 0 ? 1 : Double(progress.verified) / Double(progress.verified + problems),
                decision: !progress.dropped.isEmpty ? .drop : (problems > 0 ? .flag : .allow), reason: reason), messageID: reply)
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
    /// The model's text as it wrote it, before the output gate masked or removed anything; read
    /// by the groundedness stage only, never stored or sent.
    var modelText = ""
    /// `modelText` less the lines the echo stage withheld, when it withheld any: what
    /// groundedness reads then.
    var answerText: String?
    /// Cited sentences that their passage does not support, whose quote is not in it, or whose
    /// number is not one of the passages: any one gives the turn "AI may be inaccurate".
    var unsupportedClaims = 0
    var citations: [Citation] = []
    var retrieved: [TurnSnapshot.RetrievedPassage] = []
    var retrieval = "off"
    var ledger: TokenLedger?
    var systemPrompt = ""
    /// The course's and the client's instructions, as the turn was given them (the echo stage
    /// withholds a reply reciting them).
    var instructions = ""
    var failure: TurnFailure?
    var usage: TokenUsage?
    var firstToken: Double?
    var moderation: ModerationResult?
    var groundedness: GroundednessScore?
    /// The safety stages' verdicts, each with the message it is about.
    var verdicts: [(verdict: SafetyVerdict, messageID: String)] = []
    var flags: [SafetyFlag] = []
    var indexVersion: String?
    /// The provider's reply as it arrived, with the request's fingerprint.
    var recording: RecordedReply?
    /// The keys of the values the user shared, as the output gate kept them (nil: no gate ran).
    var sharedKeys: Set<String>?
    /// The events sent to the client, once the turn has ended.
    var events: [TurnSnapshot.SentEvent] = []

    mutating func fail(code: String, message: String, detail: String? = nil) {
        status = .failed
        failure = TurnFailure(code: code, message: message, detail: detail)
    }

    mutating func record(_ verdict: SafetyVerdict, messageID: String) {
        verdicts.append((verdict, messageID))
    }

    /// Sends a flag and keeps it for the summary and the snapshot.
    mutating func raise(_ flag: SafetyFlag, emit: TurnEmitter) {
        flags.append(flag)
        emit.yield(.flag(flag))
    }
}

/// A stage that cannot go on, with the code and words the client gets.
struct TurnStageFailure: Error {
    var code: String
    var message: String
}

extension TurnSnapshot {
    /// Reads a stored snapshot. Its keys were written snake_case from Swift names, where `ID` is
    /// one word (`story_id` is `storyID`, not `storyId`), so they are read back the same way.
    public static func decode(_ json: String) throws -> TurnSnapshot {
        try JSONDecoder.swiftSnakeCase().decode(TurnSnapshot.self, from: Data(json.utf8))
    }
}

/// What is stored with each turn (`TurnRecord.snapshot`, JSON with snake_case keys) so that it
/// can be explained and replayed: who asked what, under which prompt, model and index; what was
/// retrieved in each arm; the ledger; every verdict; the events sent; the provider's reply as it
/// arrived (a cassette); the final text. Fields added later are optional, so older turns still read.
public struct TurnSnapshot: Codable, Sendable {
    public struct RetrievedPassage: Codable, Sendable, Hashable {
        public var number: Int
        public var storyID: String
        public var passageID: String
        public var score: Double
        public var lexicalRank: Int?
        public var lexicalScore: Double?
        public var denseRank: Int?
        public var denseScore: Double?
    }

    /// An event as it was sent: its SSE name and JSON data.
    public struct SentEvent: Codable, Sendable, Hashable {
        public var event: String
        public var data: String
    }

    public var assistant: String
    public var promptVersion: Int
    public var promptHash: String
    public var promptLabel: String
    public var role: String?
    public var command: String?
    public var language: String?
    public var languageConfidence: Double
    public var provider: String
    public var model: String
    public var upstreamModel: String?
    public var settings: ModelSettings
    public var retrieval: String
    public var indexPassages: Int?
    /// `StoryArchive.indexVersion()` when the turn ran.
    public var indexVersion: String?
    public var passages: [RetrievedPassage]
    public var ledger: TokenLedger?
    public var citations: [Citation]
    public var text: String
    public var failure: TurnFailure?
    public var usage: TokenUsage?
    public var firstTokenSeconds: Double?
    /// Every safety stage's verdict, in the order they were made.
    public var safety: [SafetyVerdict]
    public var flags: [SafetyFlag]
    public var groundedness: Double?
    /// The asker: user id and the family groups whose stories they could see.
    public var viewerUser: String?
    public var viewerFamilies: [String]?
    public var courseID: String?
    public var userName: String?
    public var voice: Bool?
    /// The message as the pipeline read it (a slash command included).
    public var question: String?
    public var status: MessageStatus?
    public var events: [SentEvent]?
    public var recording: RecordedReply?
    /// Set (`deleted` or `edited`) when the message that asked was deleted or edited since: the
    /// question's text was taken out of the snapshot (`ChatStore.redactTurnCopies`).
    public var redactedQuestion: String?
    /// Set likewise when the reply was deleted: its text, events and recording were taken out.
    public var redactedReply: String?
}
