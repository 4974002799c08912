import Foundation
import Testing

extension ClusterAcceptanceTests {
    /// Issue 34: a privacy change made through node A hides the story on nodes B and C within 1 s.
    @Suite struct PrivacyPropagationTests {
        /// How long until `holds` is true on `node`, polled back to back from `since`; nil after 5 s.
        static func delay(on node: String, since: ContinuousClock.Instant, until holds: @Sendable (String) async throws -> Bool) async throws -> Duration? {
            while since.duration(to: .now) < .seconds(5) {
                if try await holds(node) { return since.duration(to: .now) }
                try await Task.sleep(for: .milliseconds(5))
            }
            return nil
        }

        @Test func aStoryMadePrivateThroughNodeAIsHiddenOnNodesBAndCWithinASecond() async throws {
            let cluster = try await ClusterFixture.shared.running()
            let admin = try await cluster.token(user: "u-prop-admin", role: .admin)
            let owner = try await cluster.token(user: "u-prop-owner")
            let outsider = try await cluster.token(user: "u-prop-outsider")
            let (writer, readers) = (cluster.node(1), [cluster.node(2), cluster.node(3)])
            var worst: [String: Duration] = [:]
            for round in 1...3 {
                let word = "zq\(UUID().uuidString.prefix(8).lowercased())"
                let id = "prop-\(word)"
                var story: [String: Any] = ["artifact_id": id, "title": "Propagation \(round)", "privacy": "public", "owner_user_id": "u-prop-owner",
                                            "transcript": "Zofia kept the \(word) ledger at the ferry landing."]
                try await ClusterRequests.ingest([story], through: writer, token: admin)
                try await ClusterRequests.waitUntilEveryNodeFinds(id, query: word, in: cluster, token: outsider)

                // Made private through node A; the clock starts before the request is sent.
                story["privacy"] = "private"
                let changed = ContinuousClock.now
                try await ClusterRequests.ingest([story], through: writer, token: admin)
                let delays = try await withThrowingTaskGroup(of: (String, Duration?).self) { group in
                    for node in readers {
                        group.addTask {
                            (node, try await Self.delay(on: node, since: changed) { node in
                                try await !ClusterRequests.searchStoryIDs(node, token: outsider, query: word).contains(id)
                            })
                        }
                    }
                    return try await group.reduce(into: [String: Duration?]()) { $0[$1.0] = $1.1 }
                }
                print("cluster: round \(round): made private through node 1, hidden from an outsider on " + readers.map { node in
                    "\(node): \(delays[node]!.map { "\(Int(($0 / .milliseconds(1)).rounded())) ms" } ?? "not within 5 s")"
                }.joined(separator: ", "))
                for node in readers {
                    let delay = try #require(delays[node] ?? nil, "\(node) still showed the private story to an outsider after 5 s")
                    #expect(delay < .seconds(1), "\(node) hid the story \(delay) after the change; the limit is 1 s")
                    worst[node] = max(worst[node] ?? .zero, delay)
                }
                // Hidden, not lost: the owner still finds it on every node and through nginx; the outsider nowhere.
                for base in cluster.nodes + [cluster.balancer] {
                    #expect(try await ClusterRequests.searchStoryIDs(base, token: owner, query: word).contains(id), "the owner lost the story on \(base)")
                    #expect(try await !ClusterRequests.searchStoryIDs(base, token: outsider, query: word).contains(id), "an outsider still finds it on \(base)")
                }
            }
            print("cluster: privacy change through node 1, worst of 3 rounds: " + worst.sorted { $0.key < $1.key }.map {
                "\($0.key) \(Int(($0.value / .milliseconds(1)).rounded())) ms"
            }.joined(separator: ", "))
        }
    }
}
