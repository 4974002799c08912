import Foundation
import GriotArchive
@testable import GriotChat
import GriotEmbedding
import GriotPrompts
import GriotProviders
import GriotSearch
import GriotStore
import GriotTestSupport
import Testing

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The demo corpus, embedded once for the whole test run.
let demoArchiveLoad = Task {
    let archive = StoryArchive(storage: try! await TestDatabase.storage(), embedder: try! SentenceEmbedder())
    _ = try! await archive.ingest(StoryFiles.read([packageRoot.appendingPathComponent("corpus").path]).stories)
    return archive
}
/// Waits for `demoArchiveLoad` (built once, by the first test that asks).
var demoArchive: StoryArchive { get async { await demoArchiveLoad.value } }

let shippedPrompts = try! PromptRegistry.load(folder: packageRoot.appendingPathComponent("prompts"))

/// A fresh engine over the shared corpus, with its own chat database.
func makeEngine(provider: any ChatProvider = ExtractiveResponder()) async throws -> ChatEngine {
    // Threads live in their own in-memory store; the archive is shared read-only.
    let chats = try await TestDatabase.storage().chats
    return await ChatEngine(archive: demoArchive, chats: chats, prompts: shippedPrompts, provider: provider, counters: .bytePair)
}

/// Runs a turn to its end and returns its events.
func events(of turn: ChatTurn) async -> [TurnEvent] {
    var all: [TurnEvent] = []
    for await event in turn.events { all.append(event) }
    return all
}

extension [TurnEvent] {
    var citations: [Citation] { compactMap { if case .citation(let c) = $0 { c } else { nil } } }
    var deltas: [String] { compactMap { if case .delta(let d) = $0 { d } else { nil } } }
    var done: TurnSummary? { compactMap { if case .done(let s) = $0 { s } else { nil } }.last }
    var meta: TurnMeta? { compactMap { if case .meta(let m) = $0 { m } else { nil } }.first }
    var failure: TurnFailure? { compactMap { if case .error(let f) = $0 { f } else { nil } }.first }
    var ledger: TokenLedger? { compactMap { if case .budget(let l) = $0 { l } else { nil } }.first }
    var chips: Chips? { compactMap { if case .chips(let c) = $0 { c } else { nil } }.first }
}

/// A provider scripted by the test: what it streams, how fast, and how it fails; it keeps the
/// requests it was sent.
final class ScriptedProvider: ChatProvider, @unchecked Sendable {
    let name = "scripted"
    let defaultModel = "scripted-1"
    var pieces: [String]
    var delay: Duration
    var failAfter: Int?
    var failure: ProviderError
    var onStart: (@Sendable (ChatRequest) -> Void)?
    private let lock = NSLock()
    private var _requests: [ChatRequest] = []
    var requests: [ChatRequest] { lock.withLock { _requests } }

    init(pieces: [String], delay: Duration = .zero, failAfter: Int? = nil, failure: ProviderError = .connection("reset by peer")) {
        self.pieces = pieces
        self.delay = delay
        self.failAfter = failAfter
        self.failure = failure
    }

    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ProviderEvent, any Error> {
        lock.withLock { _requests.append(request) }
        onStart?(request)
        let (pieces, delay, failAfter, failure) = (self.pieces, self.delay, self.failAfter, self.failure)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for (index, piece) in pieces.enumerated() {
                        if index == failAfter { throw failure }
                        if delay > .zero { try await Task.sleep(for: delay) }
                        try Task.checkCancellation()
                        continuation.yield(.text(piece))
                    }
                    if failAfter == pieces.count { throw failure }
                    continuation.yield(.finished(reason: "stop", usage: nil))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// A deterministic generator for property tests (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
