import Foundation
import Testing

extension ClusterAcceptanceTests {
    /// Issue 34: circuit breakers act as one across the fleet: three server errors seen by node A
    /// open the model's breaker on B and C, which then refuse at once (503 `ai_unavailable` with
    /// Retry-After) without asking the model.
    @Suite struct BreakerTests {
        static func ask(_ question: String, through base: String, token: String) async throws -> ClusterResponse {
            try await ClusterRequests.post("\(base)/api/griot/chat", token: token, json: ["message": question])
        }

        @Test func threeServerErrorsSeenByNodeAOpenTheBreakerOnNodesBAndC() async throws {
            let cluster = try await ClusterFixture.shared.running()
            let token = try await cluster.token(user: "u-breaker-\(UUID().uuidString.prefix(8).lowercased())")
            // Closed to begin with: the model answers through every node.
            for base in cluster.nodes {
                let answered = try await Self.ask("Who kept the ferry ledger?", through: base, token: token)
                try #require(answered.status == 200, "before the test, \(base) answered \(answered.status): \(answered.text.prefix(300))")
            }

            cluster.model.set(.failing)
            do {
                let before = cluster.stub.requests.count
                for attempt in 1...3 {
                    let failed = try await Self.ask("Failure \(attempt): who kept the ferry ledger?", through: cluster.node(1), token: token)
                    #expect(failed.status == 502, "node 1 passes the model's 500 on as 502: \(failed.status) \(failed.text.prefix(300))")
                    #expect(failed.errorCode == "provider_error")
                }
                #expect(cluster.stub.requests.count == before + 3, "one model request a message (GRIOT_RETRY_ATTEMPTS=1)")

                let opened = cluster.stub.requests.count
                var outcomes: [String] = []
                for base in [cluster.node(2), cluster.node(3), cluster.balancer, cluster.node(1)] {
                    let refused = try await Self.ask("Who kept the ferry ledger now?", through: base, token: token)
                    let ms = Int((refused.elapsed / .milliseconds(1)).rounded())
                    outcomes.append("\(base) \(refused.status) \(refused.errorCode ?? "-") Retry-After \(refused.retryAfter.map(String.init) ?? "none") in \(ms) ms")
                    #expect(refused.status == 503, "\(base) after node 1 saw three server errors: \(refused.status) \(refused.text.prefix(300))")
                    #expect(refused.errorCode == "ai_unavailable")
                    #expect((1...Int(ClusterLayout.breakerOpenSeconds)).contains(refused.retryAfter ?? 0),
                            "Retry-After is the rest of the open period: \(refused.retryAfter.map(String.init) ?? "none")")
                    #expect(refused.elapsed < .seconds(2), "refused at once, not after a model timeout: \(refused.elapsed)")
                }
                print("cluster: breaker opened by 3 server errors through node 1; then \(outcomes.joined(separator: "; "))")
                #expect(cluster.stub.requests.count == opened, "no node asked the model while the fleet's breaker was open")
            } catch {
                cluster.model.set(.answering)
                throw error
            }

            // The model is back: after the open period one probe closes the breaker for every node,
            // so the tests after this one find it closed.
            cluster.model.set(.answering)
            // Another user asks, so these messages stay clear of the first one's 30 a minute.
            let healer = try await cluster.token(user: "u-breaker-healer-\(UUID().uuidString.prefix(8).lowercased())")
            let deadline = ContinuousClock.now + .seconds(ClusterLayout.breakerOpenSeconds + 15)
            var closedAfter: Duration?
            let healed = ContinuousClock.now
            while ContinuousClock.now < deadline {
                if try await Self.ask("Is the model back?", through: cluster.balancer, token: healer).status == 200 {
                    closedAfter = healed.duration(to: .now)
                    break
                }
                try await Task.sleep(for: .seconds(1))
            }
            let closed = try #require(closedAfter, "the breaker did not close within \(ClusterLayout.breakerOpenSeconds + 15) s of the model answering again")
            for base in cluster.nodes {
                #expect(try await Self.ask("And here?", through: base, token: healer).status == 200, "\(base) after the probe closed the breaker")
            }
            print("cluster: the breaker closed \(closed) after the model answered again (open period \(Int(ClusterLayout.breakerOpenSeconds)) s)")
        }
    }
}
