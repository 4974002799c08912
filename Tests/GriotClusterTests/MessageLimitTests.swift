import Foundation
import Testing

extension ClusterAcceptanceTests {
    /// Issue 34: the message limit (30 a minute) is one count across the fleet: after 30 messages
    /// spread over the three nodes, the 31st is 429 whichever node it reaches, and through nginx.
    @Suite struct MessageLimitTests {
        /// Sends `content` to a coaching thread through `base` and reads the reply's stream to its end.
        static func send(_ content: String, thread: String, through base: String, token: String) async throws -> ClusterResponse {
            try await ClusterRequests.post("\(base)/api/coach/threads/\(thread)/messages", token: token, json: ["content": content])
        }

        @Test func theThirtyFirstMessageInAMinuteIs429OnEveryNode() async throws {
            let cluster = try await ClusterFixture.shared.running()
            let user = "u-limit-\(UUID().uuidString.prefix(8).lowercased())"
            let courses = ["course-limit-1", "course-limit-2", "course-limit-3"]
            let token = try await cluster.token(user: user, courses: courses)
            // One coaching thread per course, so each node's share of the messages runs in its own thread, at the same time.
            var opened: [String] = []
            for course in courses {
                let thread = try await ClusterRequests.post("\(cluster.balancer)/api/coach/threads", token: token, json: ["course_id": course])
                try #require(thread.status == 200, "opening a thread: \(thread.status) \(thread.text.prefix(300))")
                opened.append(try #require(thread.json["id"] as? String))
            }
            let threads = opened

            let started = ContinuousClock.now
            let sent = try await withThrowingTaskGroup(of: [(node: Int, status: Int, ended: Bool)].self) { group in
                for n in 1...3 {
                    group.addTask {
                        var results: [(node: Int, status: Int, ended: Bool)] = []
                        for number in 1...10 {
                            let reply = try await Self.send("Message \(number) to node \(n): what should I practise this week?",
                                                            thread: threads[n - 1], through: cluster.node(n), token: token)
                            results.append((n, reply.status, reply.events.contains { $0.name == "done" }))
                        }
                        return results
                    }
                }
                return try await group.reduce(into: [(node: Int, status: Int, ended: Bool)]()) { $0 += $1 }
            }
            let spent = started.duration(to: .now)
            try #require(spent < .seconds(55), "30 messages took \(spent): the first may have left the one-minute window, so a 31st could rightly pass")
            #expect(sent.count == 30)
            #expect(sent.allSatisfy { $0.status == 200 && $0.ended }, "each of the 30 messages was admitted and answered: \(sent.filter { $0.status != 200 || !$0.ended })")

            var outcomes: [String] = []
            for (index, base) in (cluster.nodes + [cluster.balancer]).enumerated() {
                let thread = threads[index % threads.count]
                let refused = try await Self.send("One more, to \(base)", thread: thread, through: base, token: token)
                outcomes.append("\(base) \(refused.status) \(refused.errorCode ?? "-") Retry-After \(refused.retryAfter.map(String.init) ?? "none")")
                #expect(refused.status == 429, "the 31st message through \(base): \(refused.status) \(refused.text.prefix(300))")
                #expect(refused.errorCode == "rate_limited")
                #expect(refused.errorDetails["limit"] as? String == "per_minute")
                #expect((1...60).contains(refused.retryAfter ?? 0), "Retry-After says when a place frees: \(refused.retryAfter.map(String.init) ?? "none")")
            }
            print("cluster: 30 messages (10 through each node) admitted in \(spent); the 31st: \(outcomes.joined(separator: "; "))")

            // The limit is the user's, not a node's: someone else is still answered.
            let other = try await cluster.token(user: "\(user)-other", courses: ["course-limit-1"])
            let otherThread = try await ClusterRequests.post("\(cluster.balancer)/api/coach/threads", token: other, json: ["course_id": "course-limit-1"])
            let answered = try await Self.send("My first message", thread: try #require(otherThread.json["id"] as? String), through: cluster.balancer, token: other)
            #expect(answered.status == 200)
        }
    }
}
