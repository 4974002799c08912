import Foundation
import GriotStore
import Testing

/// The stream journal: the events of a reply, stored in order under their numbers, read back
/// by any node; an ending appended once however many nodes try; the streams of a silent node
/// found; an erased user's streams gone.
@Suite struct StreamJournalConformanceTests {
    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)

    static func events(_ turnID: String, _ numbers: ClosedRange<Int>) -> [TurnStreamEvent] {
        numbers.map { TurnStreamEvent(turnID: turnID, number: $0, content: StreamEventContent(name: "delta", data: #"{"text":"Łukasiewicz 李秀英 \#($0) "}"#)) }
    }

    @Test("Events are read back in order after a number; a number written twice keeps its first event", arguments: StoreBackend.allCases)
    func eventsRoundTrip(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let journal = storage.chats
            let stream = TurnStreamRecord(turnID: "turn-1", userID: "u-zofia", threadID: "th-1", replyMessageID: "m-2", nodeID: "node-a", startedAt: Self.t0)
            try await journal.writeStreams(StreamJournalBatch(opened: [stream], events: Self.events("turn-1", 1...3), at: Self.t0))
            var again = Self.events("turn-1", 3...5)
            again[0].content.data = #"{"text":"changed"}"#
            try await journal.writeStreams(StreamJournalBatch(events: again, at: Self.t0))
            let read = try await journal.streamEvents(turnID: "turn-1", after: 1, limit: 100)
            #expect(read.map(\.number) == [2, 3, 4, 5])
            #expect(read[1].content == Self.events("turn-1", 3...3)[0].content, "the first write of event 3 stands, byte for byte")
            #expect(try await journal.streamEvents(turnID: "turn-1", after: 0, limit: 2).map(\.number) == [1, 2])
            let stored = try #require(try await journal.stream(turnID: "turn-1"))
            #expect(stored.userID == "u-zofia" && stored.nodeID == "node-a" && stored.finishedAt == nil)
            try await journal.writeStreams(StreamJournalBatch(finished: ["turn-1"], at: Self.t0.addingTimeInterval(2)))
            #expect(try await journal.stream(turnID: "turn-1")?.finishedAt != nil)
            #expect(try await journal.stream(turnID: "turn-unknown") == nil)
        }
    }

    @Test("A silent node's stream is found, ended once with its reply interrupted, and pruned later", arguments: StoreBackend.allCases)
    func interruptOnce(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "coach", userID: "u-li", now: Self.t0)
            _ = try await chats.appendMessage(threadID: thread.id, role: .user, content: "李秀英 asks", now: Self.t0)
            let reply = try await chats.appendMessage(threadID: thread.id, role: .assistant, content: "so far", status: .streaming, now: Self.t0)
            let stream = TurnStreamRecord(turnID: "turn-9", userID: "u-li", threadID: thread.id, replyMessageID: reply.id, nodeID: "node-dead", startedAt: Self.t0)
            try await chats.writeStreams(StreamJournalBatch(opened: [stream], events: Self.events("turn-9", 1...4), at: Self.t0))
            try await chats.beatHeart(nodeID: "node-dead", at: Self.t0)
            try await chats.beatHeart(nodeID: "node-live", at: Self.t0.addingTimeInterval(10))
            #expect(try await chats.lastHeartbeat(nodeID: "node-live") == Self.t0.addingTimeInterval(10))
            #expect(try await chats.orphanedStreams(heartbeatBefore: Self.t0.addingTimeInterval(-1)).isEmpty, "alive then")
            #expect(try await chats.orphanedStreams(heartbeatBefore: Self.t0.addingTimeInterval(5)).map(\.turnID) == ["turn-9"])

            let ending = [StreamEventContent(name: "error", data: #"{"code":"interrupted"}"#), StreamEventContent(name: "done", data: "{}")]
            let appended = try #require(try await chats.interruptStream(turnID: "turn-9", ending: ending, replyText: "so far, and more", at: Self.t0.addingTimeInterval(6)))
            #expect(appended.map(\.number) == [5, 6])
            #expect(try await chats.interruptStream(turnID: "turn-9", ending: ending, replyText: "other", at: Self.t0.addingTimeInterval(7)) == nil, "ended once")
            #expect(try await chats.streamEvents(turnID: "turn-9", after: 4, limit: 10).map(\.content.name) == ["error", "done"])
            #expect(try await chats.message(id: reply.id)?.status == .interrupted)
            #expect(try await chats.message(id: reply.id)?.content == "so far, and more", "what the clients were sent")
            #expect(try await chats.orphanedStreams(heartbeatBefore: Self.t0.addingTimeInterval(60)).isEmpty)

            #expect(try await chats.pruneStreams(finishedBefore: Self.t0) == 0)
            #expect(try await chats.pruneStreams(finishedBefore: Self.t0.addingTimeInterval(60)) == 1)
            #expect(try await chats.stream(turnID: "turn-9") == nil)
            #expect(try await chats.streamEvents(turnID: "turn-9", after: 0, limit: 10).isEmpty)
        }
    }

    @Test("A stop asked for on one node reaches the owning node; listening is recorded; an erased user's streams are gone",
          arguments: StoreBackend.allCases)
    func stopsListenersAndErasure(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let stream = TurnStreamRecord(turnID: "turn-3", userID: "u-ana", threadID: "th-3", replyMessageID: "m-3", nodeID: "node-a", startedAt: Self.t0)
            try await chats.writeStreams(StreamJournalBatch(opened: [stream], events: Self.events("turn-3", 1...2), at: Self.t0))
            #expect(try await chats.requestStreamStop(threadID: "th-3", userID: "u-other", at: Self.t0) == false, "only its user stops it")
            #expect(try await chats.stopRequestedStreams(nodeID: "node-a").isEmpty)
            #expect(try await chats.requestStreamStop(threadID: "th-3", userID: "u-ana", at: Self.t0))
            #expect(try await chats.stopRequestedStreams(nodeID: "node-a") == ["turn-3"])
            #expect(try await chats.stopRequestedStreams(nodeID: "node-b").isEmpty)
            try await chats.markStreamListened(turnID: "turn-3", at: Self.t0.addingTimeInterval(3))
            #expect(try await chats.stream(turnID: "turn-3")?.listenedAt == Self.t0.addingTimeInterval(3))
            try await chats.writeStreams(StreamJournalBatch(finished: ["turn-3"], at: Self.t0.addingTimeInterval(4)))
            #expect(try await chats.requestStreamStop(threadID: "th-3", userID: "u-ana", at: Self.t0) == false, "nothing runs")

            _ = try await chats.purgeUser(userID: "u-ana")
            #expect(try await chats.stream(turnID: "turn-3") == nil)
            #expect(try await chats.streamEvents(turnID: "turn-3", after: 0, limit: 10).isEmpty)
        }
    }
}
