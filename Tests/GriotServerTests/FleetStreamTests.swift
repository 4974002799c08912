import AsyncHTTPClient
import Foundation
import GriotAuth
import GriotChat
import GriotPrompts
import GriotProviders
import GriotStore
import GriotTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import GriotServer
import Testing

/// Two nodes on one database, each with its own registry and its own name in the stream
/// journal: a stream begun on node A resumes on node B with `Last-Event-ID`, with nothing lost
/// or repeated, whether A is alive (B follows the rest from the journal) or has stopped (B ends
/// it `interrupted`, and the reply is stored so).
@Suite struct FleetStreamTests {
    struct Node {
        let service: GriotService
        let fleet: StreamFleet
    }

    /// Nodes `a` and `b` over one chat store; B counts A dead after `deadAfter` seconds of silence.
    static func nodes(provider: any ChatProvider, deadAfter: Double = 1.5) async throws -> (a: Node, b: Node, verifier: TokenVerifier, chats: any ChatStore) {
        let archive = await demoArchive
        let prompts = try PromptRegistry.load(folder: packageRoot.appendingPathComponent("prompts"))
        let chats = try await TestDatabase.storage().chats
        let verifier = try await TokenVerifier.make(AuthConfiguration(environment: ["GRIOT_AUTH_MODE": "development"]))
        func node(_ name: String) throws -> Node {
            let engine = ChatEngine(archive: archive, chats: chats, prompts: prompts, provider: provider, counters: .bytePair)
            let fleet = StreamFleet(journal: chats, nodeID: name, deadAfter: deadAfter, pollInterval: .milliseconds(50))
            return Node(service: try GriotService(engine: engine, verifier: verifier, turns: TurnRegistry(grace: 0.5, fleet: fleet)), fleet: fleet)
        }
        return (try node("node-a"), try node("node-b"), verifier, chats)
    }

    /// Reads a stream's frames until `count` events have come, then hangs up.
    static func firstEvents(_ port: Int, _ path: String, headers: HTTPFields, body: ByteBuffer, count: Int) async throws -> [(id: String, event: String, data: [String: Any])] {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .POST
        for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
        request.body = .bytes(body)
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        var text = ""
        for try await chunk in response.body {
            text += String(buffer: chunk)
            if frames(text).count >= count { break }
        }
        return Array(frames(text).prefix(count))
    }

    static func text(_ events: [(id: String, event: String, data: [String: Any])]) -> String {
        events.filter { $0.event == "delta" }.map { $0.data["text"] as? String ?? "" }.joined()
    }

    @Test("A stream begun on node A resumes on node B while A still writes it: every event once, in order, to done")
    func resumesOnAnotherLiveNode() async throws {
        let pieces = (0..<50).map { "Zofia Łukasiewicz 李秀英 w\($0) " }
        try await StubChatServer.with({ _ in .stream(pieces, pause: 0.01) }) { server in
            let (a, b, verifier, chats) = try await Self.nodes(provider: try RemoteProviderForTests.make(server.baseURL))
            let token = try await verifier.mintDevelopmentToken(userID: "u-maya", role: .client, courseIDs: ["c-1"], expiresIn: 3600)
            let maya: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]
            let heart = Task { while !Task.isCancelled { try? await chats.beatHeart(nodeID: "node-a", at: Date()); try? await Task.sleep(for: .milliseconds(200)) } }
            defer { heart.cancel() }
            try await Application(router: a.service.router(), server: GriotService.server).test(.live) { nodeA in
                try await Application(router: b.service.router(), server: GriotService.server).test(.live) { nodeB in
                    let threadID = try await nodeA.execute(uri: "/api/coach/threads", method: .post, headers: maya, body: body(["course_id": "c-1"])) { response in
                        try #require(json(response.body)["id"] as? String)
                    }
                    let path = "/api/coach/threads/\(threadID)/messages"
                    let first = try await Self.firstEvents(nodeA.port!, path, headers: maya, body: body(["content": "Tell me about Zofia"]), count: 6)
                    let lastID = try #require(first.last?.id)
                    var resume = maya
                    resume[HTTPField.Name("Last-Event-ID")!] = lastID
                    let rest = frames(try await live(nodeB, .POST, path, headers: resume, body: body(["content": "ignored"])).text)
                    let all = first + rest
                    let turnID = String(lastID[..<lastID.lastIndex(of: ":")!])
                    #expect(all.map(\.id) == (1...all.count).map { "\(turnID):\($0)" }, "no event lost or repeated")
                    #expect(all.last?.event == "done")
                    #expect(all.last?.data["status"] as? String == "complete", "A went on writing while the client read from B")
                    let reply = try #require(try await chats.recentMessages(threadID: threadID, limit: 5).last)
                    #expect(reply.status == .complete)
                    #expect(Self.text(all) == reply.content, "the client holds exactly the stored reply")
                    #expect(reply.content.contains("Zofia Łukasiewicz 李秀英 w49"))
                }
            }
        }
    }

    @Test("When node A stops beating its heart mid-reply, a resume on B gets what A sent and an end marked interrupted; the reply is stored so")
    func endsInterruptedWhenTheNodeIsGone() async throws {
        // The model writes a little, then stalls: node A "dies" (its heartbeat stops) meanwhile.
        try await StubChatServer.with({ _ in StubReply(steps: [.send(SSE.chunk("Aunt Lil kept bees. ", role: "assistant")),
                                                               .send(SSE.chunk("She sold honey in Macon. ")), .send(SSE.chunk("Then ")),
                                                               .pause(seconds: 8)]) }) { server in
            let (a, b, verifier, chats) = try await Self.nodes(provider: try RemoteProviderForTests.make(server.baseURL), deadAfter: 1)
            let token = try await verifier.mintDevelopmentToken(userID: "u-ruth", role: .client, courseIDs: ["c-1"], expiresIn: 3600)
            let ruth: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]
            try await chats.beatHeart(nodeID: "node-a", at: Date())
            try await Application(router: a.service.router(), server: GriotService.server).test(.live) { nodeA in
                try await Application(router: b.service.router(), server: GriotService.server).test(.live) { nodeB in
                    let threadID = try await nodeA.execute(uri: "/api/coach/threads", method: .post, headers: ruth, body: body(["course_id": "c-1"])) { response in
                        try #require(json(response.body)["id"] as? String)
                    }
                    let path = "/api/coach/threads/\(threadID)/messages"
                    let first = try await Self.firstEvents(nodeA.port!, path, headers: ruth, body: body(["content": "What did Aunt Lil keep?"]), count: 2)
                    let lastID = try #require(first.last?.id)
                    var resume = ruth
                    resume[HTTPField.Name("Last-Event-ID")!] = lastID
                    let started = ContinuousClock.now
                    let rest = frames(try await live(nodeB, .POST, path, headers: resume, body: body(["content": "ignored"])).text)
                    #expect(ContinuousClock.now - started < .seconds(10), "ended within a few heartbeats, not at the model's pace")
                    let all = first + rest
                    let turnID = String(lastID[..<lastID.lastIndex(of: ":")!])
                    #expect(all.map(\.id) == (1...all.count).map { "\(turnID):\($0)" })
                    #expect(rest.dropLast().last?.event == "error")
                    #expect(rest.dropLast().last?.data["code"] as? String == "interrupted")
                    #expect(all.last?.event == "done")
                    #expect(all.last?.data["status"] as? String == "interrupted")
                    #expect(all.last?.data["text"] as? String == Self.text(all))
                    let messages = try await chats.recentMessages(threadID: threadID, limit: 5)
                    #expect(messages.first?.content == "What did Aunt Lil keep?", "the user's message is stored")
                    #expect(messages.last?.status == .interrupted)
                    #expect(messages.last?.content == Self.text(all), "stored as the client holds it")

                    // Another resume, on either node, gets the same ending, not a second one.
                    let again = frames(try await live(nodeA, .POST, path, headers: resume, body: body(["content": "ignored"])).text)
                    #expect(again.map(\.id) == rest.map(\.id))
                    #expect(await a.service.turns.runningTurns().count <= 1)
                    for turn in await a.service.turns.runningTurns() { turn.stop() }
                }
            }
        }
    }

    @Test("The sweep ends the running streams of a node that stopped, so no reply stays streaming")
    func sweepEndsOrphans() async throws {
        let storage = try await TestDatabase.storage()
        let chats = storage.chats
        let thread = try await chats.createThread(assistant: "coach", userID: "u-ana")
        let reply = try await chats.appendMessage(threadID: thread.id, role: .assistant, content: "so far", status: .streaming)
        let started = Date().addingTimeInterval(-30)
        try await chats.writeStreams(StreamJournalBatch(opened: [TurnStreamRecord(turnID: "turn-x", userID: "u-ana", threadID: thread.id,
                                                                                    replyMessageID: reply.id, nodeID: "node-gone", startedAt: started)],
                                                      events: [TurnStreamEvent(turnID: "turn-x", number: 1, content: TurnEvent.delta("so far").content)]))
        try await chats.beatHeart(nodeID: "node-gone", at: started)
        let fleet = StreamFleet(journal: chats, nodeID: "node-sweeper")
        let node = StreamNodeService(fleet: fleet, turns: TurnRegistry(fleet: fleet), jobs: chats, logger: .init(label: "test"))
        await node.beat(sweep: true)
        #expect(try await chats.message(id: reply.id)?.status == .interrupted)
        let events = try await chats.streamEvents(turnID: "turn-x", after: 0, limit: 10)
        #expect(events.map(\.content.name) == ["delta", "error", "done"])
        #expect(events.last?.content.data.contains(#""text":"so far""#) == true)
        #expect(try await chats.lastHeartbeat(nodeID: "node-sweeper") != nil)
    }
}
