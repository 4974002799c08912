import Foundation
import GriotChat
import GriotServer
import GriotStore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// Issue 37's acceptance for the review queue's outbox: a tracker on loopback that fails twice,
/// then accepts, gets one accepted delivery and no duplicate, although the worker that saw the
/// first failure was stopped and a new one, on a new connection to the same database, finished.
@Suite struct ReviewWebhookTests {
    /// What the loopback tracker was sent, and its answer to each post.
    final class Tracker: Sendable {
        struct Post: Sendable {
            var idempotencyKey: String?
            var authorization: String?
            var body: Data
            var status: Int
        }

        let posts = Mutex<[Post]>([])
        /// Posts answered 500 before the first 201.
        let failures: Int

        init(failures: Int) {
            self.failures = failures
        }

        var all: [Post] { posts.withLock { $0 } }
        var accepted: [Post] { all.filter { $0.status == 201 } }

        func router() -> Router<BasicRequestContext> {
            let router = Router()
            router.post("/rest/api/2/issue") { request, _ -> Response in
                let body = try await request.body.collect(upTo: 1 << 20)
                let status = self.posts.withLock { posts in
                    let status = posts.count < self.failures ? 500 : 201
                    posts.append(Post(idempotencyKey: request.headers[HTTPField.Name("Idempotency-Key")!],
                                      authorization: request.headers[.authorization], body: Data(buffer: body), status: status))
                    return status
                }
                guard status == 201 else {
                    return Response(status: .internalServerError, body: .init(byteBuffer: ByteBuffer(string: "tracker down for maintenance")))
                }
                return Response(status: .created, headers: [.contentType: "application/json"],
                                body: .init(byteBuffer: ByteBuffer(string: #"{"id":"10001","key":"TS-1","self":"http://tracker/rest/api/2/issue/10001"}"#)))
            }
            return router
        }
    }

    /// A low-groundedness turn on a SQLite file, as the pipeline stores it; returns its ticket's id.
    static func flaggedTurn(_ chats: any ChatStore) async throws -> String {
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth")
        let turnID = UUID().uuidString.lowercased()
        let question = try await chats.appendMessage(threadID: thread.id, role: .user,
                                                     content: "Did Grandpa write to ruth.carter@example.com about the 1927 flood?", turnID: turnID)
        let reply = try await chats.appendMessage(threadID: thread.id, role: .assistant, content: "He wrote every week.", turnID: turnID)
        let now = Date()
        try await chats.saveTurn(TurnRecord(id: turnID, threadID: thread.id, userMessageID: question.id, assistantMessageID: reply.id, assistant: "griot",
                                            promptVersion: 1, promptHash: "h", provider: "extractive", model: "m", status: .complete,
                                            startedAt: now, finishedAt: now, snapshot: "{}"))
        try await chats.recordVerdicts([SafetyVerdictRecord(at: now, turnID: turnID, threadID: thread.id, messageID: reply.id, userID: "u-ruth",
                                                            ipHash: nil, stage: "groundedness", score: 0.21, decision: "flag",
                                                            reason: "answer 0.21 over 2 claims; 2 below 0.4")])
        return try #require(try await chats.reviewItems(ReviewFilter(turnID: turnID)).first?.ticket.id)
    }

    /// Waits up to `seconds` for `condition`, checking every 20 ms.
    static func eventually(_ seconds: Double, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    @Test func aTrackerThatFailsTwiceGetsOneDeliveryAcrossARestart() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("griot-review-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("griot.sqlite").path
        let tracker = Tracker(failures: 2)
        let receiver = Application(router: tracker.router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))

        try await receiver.test(.live) { client in
            let port = try #require(client.port)
            let url = try #require(URL(string: "http://127.0.0.1:\(port)/rest/api/2/issue"))
            let first = try SQLiteStoryStore(path: path).storage().chats
            let ticketID = try await Self.flaggedTurn(first)
            let scrubber = SafetyTools().scrubber

            // The first node: its retry is due in 1 to 2 s, so it is stopped before it tries again.
            let slow = ReviewWebhook(url: url, authorization: "Basic dGVzdDp0ZXN0", baseDelay: 2, maximumDelay: 2, pollInterval: 0.02)
            let nodeA = ReviewDeliveryService(chats: first, scrubber: scrubber, webhook: slow, owner: "node-a")
            let runningA = Task { try await nodeA.run() }
            let failedOnce = try await Self.eventually(20) { try await first.reviewItem(id: ticketID)?.delivery?.attempts == 1 }
            runningA.cancel()
            try await runningA.value
            #expect(failedOnce)
            let afterA = try #require(try await first.reviewItem(id: ticketID)?.delivery)
            #expect(afterA.state == .retrying && afterA.lastError?.hasPrefix("HTTP 500: tracker down") == true && afterA.deliveredAt == nil)
            #expect(tracker.all.count == 1)

            // The restart: a new worker on a new connection to the same file carries on from the
            // outbox (attempt 2 fails, attempt 3 is accepted), and posts nothing more after that.
            let second = try SQLiteStoryStore(path: path).storage().chats
            let fast = ReviewWebhook(url: url, authorization: "Basic dGVzdDp0ZXN0", baseDelay: 0.05, maximumDelay: 0.1, pollInterval: 0.02)
            let nodeB = ReviewDeliveryService(chats: second, scrubber: scrubber, webhook: fast, owner: "node-b")
            let runningB = Task { try await nodeB.run() }
            let delivered = try await Self.eventually(30) { try await second.reviewItem(id: ticketID)?.delivery?.state == .delivered }
            try await Task.sleep(for: .milliseconds(500))
            runningB.cancel()
            try await runningB.value
            #expect(delivered)

            #expect(tracker.all.map(\.status) == [500, 500, 201], "two failures, then one accepted post and nothing after it")
            #expect(tracker.accepted.count == 1)
            #expect(tracker.all.allSatisfy { $0.idempotencyKey == ticketID && $0.authorization == "Basic dGVzdDp0ZXN0" },
                    "every attempt carries the ticket's id as its idempotency key")
            let delivery = try #require(try await second.reviewItem(id: ticketID)?.delivery)
            #expect(delivery.attempts == 3 && delivery.remoteKey == "TS-1" && delivery.lastError == nil && delivery.deliveredAt != nil)

            // The body is Jira's "create issue", with nothing operators may not read.
            let sent = try #require(tracker.accepted.first)
            let object = try #require(try JSONSerialization.jsonObject(with: sent.body) as? [String: Any])
            let fields = try #require(object["fields"] as? [String: Any])
            #expect((fields["project"] as? [String: Any])?["key"] as? String == "TS")
            #expect((fields["issuetype"] as? [String: Any])?["name"] as? String == "Task")
            #expect((fields["summary"] as? String)?.hasPrefix("[Griot] Low groundedness: griot") == true)
            #expect(Set(fields["labels"] as? [String] ?? []) == ["griot", "griot-review", "low_groundedness", "assistant-griot"])
            let description = try #require(fields["description"] as? String)
            #expect(description.contains(ticketID) && description.contains("answer 0.21 over 2 claims"))
            #expect(description.contains("Did Grandpa write to") && description.contains("1927 flood"), "the question, masked: \(description)")
            let text = String(decoding: sent.body, as: UTF8.self)
            #expect(!text.contains("ruth.carter@example.com"), "personal details are masked")
            #expect(!text.contains("u-ruth"), "no user id")
            #expect(!text.contains("He wrote every week"), "no reply text")
        }
    }

    @Test func theBackOffGrowsExponentiallyWithJitterUpToItsCap() {
        let webhook = ReviewWebhook(url: URL(string: "http://127.0.0.1:1/")!, baseDelay: 2, maximumDelay: 60)
        #expect(webhook.delay(afterAttempts: 1, random: 0) == 1 && webhook.delay(afterAttempts: 1, random: 1) == 2)
        #expect(webhook.delay(afterAttempts: 3, random: 1) == 8)
        #expect(webhook.delay(afterAttempts: 20, random: 1) == 60 && webhook.delay(afterAttempts: 20, random: 0) == 30)
        let spread = Set((0..<20).map { _ in webhook.delay(afterAttempts: 4) })
        #expect(spread.count > 1 && spread.allSatisfy { (8...16).contains($0) }, "jitter spreads nodes that failed together")
    }

    @Test func theEnvironmentNamesTheWebhookOrNone() throws {
        #expect(try ReviewWebhook(environment: [:]) == nil)
        let webhook = try #require(try ReviewWebhook(environment: ["GRIOT_REVIEW_WEBHOOK_URL": "https://tracker.example/rest/api/2/issue",
                                                                   "GRIOT_REVIEW_PROJECT_KEY": "SAFE"]))
        #expect(webhook.projectKey == "SAFE" && webhook.issueType == "Task" && webhook.baseDelay == 2 && webhook.maximumDelay == 3600)
        #expect(throws: ReviewWebhookError.self) { try ReviewWebhook(environment: ["GRIOT_REVIEW_WEBHOOK_URL": "ftp://tracker"]) }
        #expect(throws: ReviewWebhookError.self) {
            try ReviewWebhook(environment: ["GRIOT_REVIEW_WEBHOOK_URL": "https://t.example/", "GRIOT_REVIEW_RETRY_BASE_SECONDS": "soon"])
        }
    }
}
