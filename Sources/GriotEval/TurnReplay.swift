import Foundation
import GriotChat
import GriotProviders
import GriotSafety
import GriotSearch
import GriotStore

/// What a replay changes about the stored turn; everything left nil is as the turn had it.
public struct ReplayOptions: Sendable, Hashable {
    /// `snapshot`: the passages the turn retrieved, in its order (the index as it was);
    /// `current`: search again on today's index with the prompt's retrieval settings.
    public enum Index: String, Sendable, Hashable, Codable, CaseIterable { case snapshot, current }

    /// A prompt version or label; nil replays the version the turn used.
    public var promptVersion: String?
    public var model: String?
    public var index: Index
    /// Play back the provider's recorded replies where the request is the same (byte for byte).
    public var cassette: Bool

    public init(promptVersion: String? = nil, model: String? = nil, index: Index = .snapshot, cassette: Bool = false) {
        self.promptVersion = promptVersion
        self.model = model
        self.index = index
        self.cassette = cassette
    }
}

/// A stored turn run again, and what changed.
public struct ReplayResult: Codable, Sendable {
    public var turnID: String
    public var threadID: String
    public var question: String
    public var original: TurnSnapshot
    public var replayed: TurnSnapshot
    public var diff: TurnDiff
    /// `played` (the recorded reply), `live` (the request differed, or no cassette), `none` (no model was called).
    public var providerSource: String
    /// Why the reply does not come from the cassette that was asked for, or why the played
    /// reply still differs from the stored one; nil when there is nothing to explain.
    public var cassetteNote: String?
}

/// Re-runs stored turns through the same pipeline, in a scratch copy of their thread, so that a
/// replay never writes to anyone's conversation.
///
/// ```swift
/// let replayer = TurnReplayer(engine: engine)
/// let results = try await replayer.replay(id: "turn-or-thread-id", options: ReplayOptions(promptVersion: "2"))
/// print(ReplayText.render(results))
/// ```
/// A single turn is replayed after a copy of the thread's earlier messages; a thread is replayed
/// turn by turn, feeding the original user messages, so each reply sees the replay's own history.
/// Each turn runs with the clock at its original time (the prompt's `{{today}}` is the same).
public struct TurnReplayer: Sendable {
    public let engine: ChatEngine
    /// The provider replays use instead of the engine's (another provider or model server).
    public let provider: (any ChatProvider)?

    public init(engine: ChatEngine, provider: (any ChatProvider)? = nil) {
        self.engine = engine
        self.provider = provider
    }

    /// Replays a turn, or every turn of a thread, by id. Each replay leaves a `turn.replay` audit
    /// entry on the conversation's owner (an operator has read their conversation).
    public func replay(id: String, options: ReplayOptions = ReplayOptions()) async throws -> [ReplayResult] {
        let results: [ReplayResult]
        if let turn = try await engine.chats.turn(id: id) {
            results = try await replay(turns: [turn], threadID: turn.threadID, copyingHistory: true, options: options)
        } else if try await engine.chats.thread(id: id) != nil {
            let turns = try await engine.chats.turns(threadID: id)
            guard !turns.isEmpty else { throw ReplayError("thread \(id) has no stored turns to replay") }
            results = try await replay(turns: turns, threadID: id, copyingHistory: false, options: options)
        } else {
            throw ReplayError("there is no turn or thread \(id); list recent turns with GET /api/ops/turns, or pass a thread id", notFound: true)
        }
        if let first = results.first, let thread = try await engine.chats.thread(id: first.threadID) {
            try await engine.chats.recordAudit(AuditEntry(
                action: .turnReplay, userID: thread.userID, threadID: thread.id,
                details: AuditEntry.details([
                    "turns": .int(results.count), "prompt_version": .string(options.promptVersion ?? "as stored"),
                    "index": .string(options.index.rawValue), "cassette": .string(String(options.cassette)),
                    "model": .string(options.model ?? "as stored"),
                ])))
        }
        return results
    }

    private func replay(turns: [TurnRecord], threadID: String, copyingHistory: Bool, options: ReplayOptions) async throws -> [ReplayResult] {
        guard let thread = try await engine.chats.thread(id: threadID) else { throw ReplayError("the thread \(threadID) of the turn is gone") }
        let originals = try turns.map { turn in (turn, try Self.decode(turn.snapshot, turnID: turn.id)) }
        let scratch = try Storage.inMemory().chats
        if let courseID = thread.courseID, let course = try await engine.chats.course(id: courseID) { try await scratch.saveCourse(course) }
        if let profile = try await engine.chats.profile(userID: thread.userID) { try await scratch.saveProfile(profile) }
        let copy = try await scratch.createThread(assistant: thread.assistant, userID: thread.userID, courseID: thread.courseID, title: thread.title)
        if copyingHistory, let first = turns.first, let question = try await engine.chats.message(id: first.userMessageID) {
            for message in try await engine.chats.recentMessages(threadID: threadID, limit: 200, beforeSequence: question.sequence) {
                _ = try await scratch.appendMessage(threadID: copy.id, role: message.role, content: message.content, status: message.status,
                                              turnID: message.turnID, now: message.createdAt)
            }
        }
        let live = provider ?? engine.provider
        var results: [ReplayResult] = []
        for (turn, original) in originals {
            // A question its author deleted or edited is gone from every copy, replays included.
            if let reason = original.redactedQuestion {
                // In a thread the other turns still replay; a turn named alone is refused.
                if originals.count > 1 { continue }
                throw ReplayError("turn \(turn.id) cannot be replayed: its question was \(reason) by its author, and its text is no longer kept for replays")
            }
            var question = original.question
            if question == nil { question = try await engine.chats.message(id: turn.userMessageID)?.content }
            guard let question, !question.isEmpty else { throw ReplayError("turn \(turn.id) has no stored question (its message was deleted or purged)") }
            let cassette = options.cassette ? CassetteProvider(recordings: original.recording.map { [$0] } ?? [], live: live) : nil
            let replaying = ChatEngine(archive: engine.archive, chats: scratch, prompts: engine.prompts, provider: cassette ?? live,
                                       counters: engine.counters, breakers: engine.breakers, preparation: engine.preparation,
                                       safety: engine.safety, assistants: engine.assistants, now: { [started = turn.startedAt] in started })
            var request = TurnRequest(
                assistant: turn.assistant, message: question,
                viewer: Viewer(userID: original.viewerUser ?? thread.userID, familyGroupIDs: Set(original.viewerFamilies ?? [])),
                threadID: copy.id, courseID: original.courseID ?? thread.courseID, role: original.role, userName: original.userName,
                promptLabel: options.promptVersion ?? String(original.promptVersion), voice: original.voice ?? false)
            request.model = options.model
            if options.index == .snapshot { request.pinnedPassages = original.passages }
            let started: ChatTurn
            do {
                started = try await replaying.startTurn(request)
            } catch let error as ChatError {
                throw ReplayError("turn \(turn.id) cannot be replayed: \(error.description)")
            }
            for await _ in started.events {}
            await started.finished()
            guard let record = try await scratch.turn(id: started.id) else { throw ReplayError("the replay of turn \(turn.id) stored no snapshot") }
            var replayed = try Self.decode(record.snapshot, turnID: record.id)
            let source = replayed.recording == nil ? "none" : ((cassette?.played ?? 0) > 0 ? "played" : "live")
            if source == "played" { replayed = replayed.carryingMaskVerdicts(of: original) }
            var note: String?
            if let cassette, source != "played", replayed.recording != nil {
                note = "not played from the cassette: " + (cassette.missReasons.first ?? "no recording matched")
            } else if source == "played", replayed.text != original.text {
                // The model's words were the recorded ones: what differs came after the model.
                note = "the recorded reply was played, but the stages after the model (the output gate, the citation checks) "
                    + "gave another text than they did at the time (\(original.text.utf8.count) bytes stored, \(replayed.text.utf8.count) now); "
                    + "the flags and verdicts below say which"
            }
            results.append(ReplayResult(turnID: turn.id, threadID: threadID, question: question, original: original, replayed: replayed,
                                        diff: TurnDiff(original, replayed), providerSource: source, cassetteNote: note))
        }
        return results
    }

    static func decode(_ json: String, turnID: String) throws -> TurnSnapshot {
        do {
            return try TurnSnapshot.decode(json)
        } catch {
            throw ReplayError("the snapshot of turn \(turnID) cannot be read (\(error)); it may predate snapshots")
        }
    }
}

extension TurnSnapshot {
    /// The output stages that read the model's text as it wrote it, before masking, and the flag each raises.
    static let stagesOfTheModelsText: [String: SafetyFlag.Kind] = [
        "pii": .piiMasked, "groundedness": .lowGroundedness, "copyright": .copyrightReview, "output_moderation": .outputModeration,
    ]

    /// A replay played from the cassette, with the original's verdicts where the recording cannot
    /// re-derive them. When the gate masked personal data, the recording holds the reply as the
    /// user got it (a value they were not shown is kept nowhere), not as the model wrote it: the
    /// stages that read the model's text would find nothing to mask and score a different text,
    /// and an unchanged turn would show `pii_masked` removed. Those stages' verdicts, flags and
    /// the groundedness score are then the original's, each verdict saying so. A recording with
    /// nothing masked is the model's text itself, and every stage runs again on it.
    func carryingMaskVerdicts(of original: TurnSnapshot) -> TurnSnapshot {
        guard original.safety.contains(where: { $0.stage == "pii" && $0.decision == .mask }) else { return self }
        var carried = self
        for (stage, kind) in Self.stagesOfTheModelsText {
            carried.safety.removeAll { $0.stage == stage }
            carried.flags.removeAll { $0.kind == kind }
            if var verdict = original.safety.first(where: { $0.stage == stage }) {
                verdict.reason += "; carried from the original turn (its recording holds the masked text)"
                carried.safety.append(verdict)
            }
            if let flag = original.flags.first(where: { $0.kind == kind }) { carried.flags.append(flag) }
        }
        carried.groundedness = original.groundedness
        // In the original's order, so that the same flags read the same: the nth flag of a kind
        // takes the place of the original's nth flag of that kind (a reply can raise one kind
        // several times, e.g. a citation_unsupported per sentence, between flags of other kinds).
        var places: [SafetyFlag.Kind: [Int]] = [:]
        for (index, flag) in original.flags.enumerated() { places[flag.kind, default: []].append(index) }
        var taken: [SafetyFlag.Kind: Int] = [:]
        let placed = carried.flags.enumerated().map { offset, flag -> (place: Int, offset: Int, flag: SafetyFlag) in
            let nth = taken[flag.kind, default: 0]
            taken[flag.kind] = nth + 1
            let place = places[flag.kind].flatMap { nth < $0.count ? $0[nth] : nil } ?? original.flags.count + offset
            return (place, offset, flag)
        }
        carried.flags = placed.sorted { ($0.place, $0.offset) < ($1.place, $1.offset) }.map(\.flag)
        return carried
    }
}

public struct ReplayError: Error, CustomStringConvertible, Sendable {
    public var description: String
    /// The turn or thread does not exist (as opposed to one that cannot be replayed).
    public var isNotFound: Bool
    init(_ description: String, notFound: Bool = false) {
        self.description = description
        isNotFound = notFound
    }
}
