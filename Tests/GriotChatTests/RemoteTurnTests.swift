import Foundation
@testable import GriotChat
import GriotProviders
import GriotStore
import GriotTestSupport
import Testing

/// Whole turns against the stub server through the real provider, its retries and its breaker.
@Suite struct RemoteTurnTests {
    func engine(for server: StubChatServer, clock: ManualResilienceClock? = nil) async throws -> (ChatEngine, CircuitBreakerRegistry) {
        let configuration = try OpenAICompatibleConfiguration(environment: ["OPENAI_BASE_URL": server.baseURL, "OPENAI_MODEL": "stub-model"])
        let breakers = clock.map { CircuitBreakerRegistry(clock: $0) } ?? CircuitBreakerRegistry()
        // Backoff sleeps use the breaker's clock, so the manual clock makes them instant.
        let provider = await ResilientProvider(wrapping: OpenAICompatibleProvider(configuration: configuration), registry: breakers)
        let chats = try await TestDatabase.storage().chats
        return await (ChatEngine(archive: demoArchive, chats: chats, prompts: shippedPrompts, provider: provider, counters: .bytePair, breakers: breakers), breakers)
    }

    @Test func aStreamedReplyIsRegroupedIntoDeltasAndStoredComplete() async throws {
        let pieces = (0..<60).map { "w\($0) " }
        try await StubChatServer.with({ _ in .stream(pieces) }) { server in
            let (engine, _) = try await engine(for: server)
            let turn = try await engine.startTurn(TurnRequest(message: "Who was Tad Carter?", viewer: carterFamily))
            let events = await events(of: turn)
            #expect(events.done?.status == .complete)
            #expect(events.deltas.joined() == pieces.joined())
            #expect(events.deltas.count < pieces.count, "pieces are grouped into deltas of about 20 tokens")
            #expect(try await engine.chats.message(id: turn.replyMessageID)?.content == pieces.joined())
        }
    }

    @Test func stoppingATurnDisconnectsFromTheServerAndStoresThePartialReply() async throws {
        // Sentences, since the griot's PII and moderation stages pass text a whole sentence at a time.
        let pieces = (0..<300).map { "W\($0). " }
        try await StubChatServer.with({ _ in .stream(pieces, pause: 0.02) }) { server in
            let (engine, _) = try await engine(for: server)
            let turn = try await engine.startTurn(TurnRequest(message: "Tell me about the Pullman porters", viewer: stranger))
            var collected: [TurnEvent] = []
            for await event in turn.events {
                collected.append(event)
                // The first delta is the first sentence alone; the second holds the next twenty tokens.
                if collected.deltas.count == 2 { turn.stop() }
            }
            #expect(collected.done?.status == .stopped)
            #expect(await server.waitUntil(timeout: 5) { $0.first?.clientDisconnected == true }, "the stub sees the disconnect")
            let reply = try #require(try await engine.chats.message(id: turn.replyMessageID))
            #expect(reply.status == .stopped)
            #expect(reply.content.hasPrefix("W0. W1. "))
            #expect(!reply.content.contains("W299"))
        }
    }

    @Test func aConnectionLostMidStreamStoresThePartialReplyAsFailedWithoutRetrying() async throws {
        let steps: [StubReply.Step] = [.send(SSE.chunk(role: "assistant")), .send(SSE.chunk("The levee broke ")),
                                        .send(SSE.chunk("at Mounds Landing ")), .pause(seconds: 0.05), .closeAbruptly]
        try await StubChatServer.with({ _ in StubReply(steps: steps) }) { server in
            let (engine, _) = try await engine(for: server)
            let turn = try await engine.startTurn(TurnRequest(message: "What happened in 1927?", viewer: carterFamily))
            let events = await events(of: turn)
            #expect(events.failure?.code == "provider_error")
            #expect(events.done?.status == .failed)
            let reply = try #require(try await engine.chats.message(id: turn.replyMessageID))
            #expect(reply.status == .failed)
            #expect(reply.content == "The levee broke at Mounds Landing ")
            #expect(server.requests.count == 1, "no retry once text has streamed")
        }
    }

    @Test func threeFailingTurnsOpenTheBreakerAndTheNextFailsFastUntilTheProbe() async throws {
        let clock = ManualResilienceClock()
        let healthy = LockedBox(false)
        try await StubChatServer.with({ _ in healthy.value ? .stream(["Back again."]) : .error(status: 503, message: "overloaded") }) { server in
            let (engine, breakers) = try await engine(for: server, clock: clock)
            // One turn makes three attempts (two retries), which are three consecutive 5xx.
            let first = await events(of: try engine.startTurn(TurnRequest(message: "Who was Tad?", viewer: stranger)))
            #expect(first.failure?.code == "provider_error")
            #expect(server.requests.count == 3)
            #expect(await breakers.snapshots().first?.state == .open)

            let fast = await events(of: try engine.startTurn(TurnRequest(message: "Who was Tad?", viewer: stranger)))
            #expect(fast.failure?.code == "ai_unavailable")
            #expect(fast.failure?.message.hasPrefix("AI temporarily unavailable") == true)
            #expect(server.requests.count == 3, "nothing reaches the server while the breaker is open")

            clock.advance(by: 120)
            healthy.value = true
            let probe = await events(of: try engine.startTurn(TurnRequest(message: "Who was Tad?", viewer: stranger)))
            #expect(probe.done?.status == .complete)
            #expect(probe.done?.text == "Back again.")
            #expect(await breakers.snapshots().first?.state == .closed)
        }
    }
}
