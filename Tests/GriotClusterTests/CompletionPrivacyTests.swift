import Foundation
import GriotTestSupport
import Testing

extension ClusterAcceptanceTests {
    /// Issue 36: the randomized privacy test through OpenAI's `/v1/chat/completions` on the
    /// cluster. Random stories (public, family-only for random family groups, private) are
    /// ingested through one node; random callers, half of them holding API keys made through the
    /// admin route and half JWTs, ask random questions through nginx; no citation is ever of a
    /// story its caller may not see.
    @Suite struct CompletionPrivacyTests {
        /// Words of their own, apart from `PrivacyLeakTests.words`.
        static let words = ["orchard", "quilt", "harbor", "lantern", "bakery", "ferry", "mill", "kettle", "garden", "bridge",
                            "violin", "tram", "market", "meadow", "barn", "festival", "postcard", "bicycle", "candle", "porch"]
        static let users = (0..<12).map { "u-v1-leak-\($0)" }
        static let families = (0..<6).map { "fam-v1-leak-\($0)" }

        @Test func randomCompletionsThroughTheBalancerCiteNothingHidden() async throws {
            let cluster = try await ClusterFixture.shared.running()
            // The model cites the passages it is given: what retrieval put before it is what it names.
            cluster.model.set(.citing)
            defer { cluster.model.set(.answering) }
            var random = SplitMix64(seed: 20_261_129)
            let admin = try await cluster.token(user: "u-v1-leak-admin", role: .admin)

            var access: [String: PrivacyLeakTests.StoryAccess] = [:]
            var stories: [[String: Any]] = []
            for number in 0..<90 {
                let privacy = ["public", "family_only", "private"].randomElement(using: &random)!
                let owner = privacy == "public" && Bool.random(using: &random) ? nil : Self.users.randomElement(using: &random)!
                let groups = Set((0..<Int.random(in: privacy == "family_only" ? 1...2 : 0...2, using: &random)).map { _ in
                    Self.families.randomElement(using: &random)!
                })
                let id = "v1-leak-\(number)"
                access[id] = .init(privacy: privacy, owner: owner, families: groups)
                // Sentences, so that the offline responder has something to quote.
                let sentences = (0..<4).map { _ in
                    "We remember the " + (0..<8).map { _ in Self.words.randomElement(using: &random)! }.joined(separator: " ") + "."
                }
                var story: [String: Any] = [
                    "artifact_id": id, "title": "The \(Self.words.randomElement(using: &random)!) story \(number)", "privacy": privacy,
                    "family_group_ids": groups.sorted(), "transcript": sentences.joined(separator: " "),
                ]
                story["owner_user_id"] = owner
                stories.append(story)
            }
            try await ClusterRequests.ingest(stories, through: cluster.node(1), token: admin)
            let sentinel: [String: Any] = ["artifact_id": "v1-leak-sentinel", "title": "Sentinel", "privacy": "public",
                                           "transcript": "The qwertzuiop sentinel closes the batch."]
            try await ClusterRequests.ingest([sentinel], through: cluster.node(1), token: admin)
            try await ClusterRequests.waitUntilEveryNodeFinds("v1-leak-sentinel", query: "qwertzuiop", in: cluster, token: admin)
            access["v1-leak-sentinel"] = .init(privacy: "public", owner: nil, families: [])

            // Callers: each user twice with random families, once by a JWT and once by an API key
            // (whose user id is its own `key:<id>`, so it owns no story: only its families count).
            var callers: [(user: String, families: Set<String>, bearer: String)] = []
            for user in Self.users {
                let families = Set((0..<Int.random(in: 0...2, using: &random)).map { _ in Self.families.randomElement(using: &random)! })
                callers.append((user, families, try await cluster.token(user: user, families: families.sorted())))
                let keyFamilies = Set((0..<Int.random(in: 0...2, using: &random)).map { _ in Self.families.randomElement(using: &random)! })
                let made = try await ClusterRequests.post("\(cluster.balancer)/api/admin/keys", token: admin,
                                                          json: ["name": "leak test \(user)", "role": "client", "family_ids": keyFamilies.sorted()])
                guard made.status == 201, let key = made.json["key"] as? String, let id = made.json["id"] as? String else {
                    throw ClusterError("making a key answered \(made.status): \(made.text.prefix(300))")
                }
                callers.append(("key:\(id)", keyFamilies, key))
            }
            let asks = (0..<240).map { index in
                (caller: index % callers.count,
                 question: "What do you remember about the " + (0..<Int.random(in: 1...3, using: &random)).map { _ in Self.words.randomElement(using: &random)! }.joined(separator: " and the ") + "?",
                 stream: Bool.random(using: &random))
            }
            let (oracle, bearers) = (access, callers)
            // The stories go when the test ends, however it ends, so that the other randomized
            // privacy test (whose oracle knows only its own stories) never meets them.
            func removeStories() async {
                for id in oracle.keys { _ = try? await ClusterRequests.send(.DELETE, "\(cluster.node(1))/api/stories/\(id)", token: admin) }
            }
            let lanes = 6
            typealias Tally = (leaks: [String], citations: Int, restricted: Int)
            let outcome: Result<Tally, any Error>
            do { outcome = .success(try await withThrowingTaskGroup(of: Tally.self) { group in
                for lane in 0..<lanes {
                    group.addTask {
                        var leaks: [String] = []
                        var citations = 0
                        var restricted = 0
                        for index in stride(from: lane, to: asks.count, by: lanes) {
                            let ask = asks[index]
                            let caller = bearers[ask.caller]
                            let response = try await ClusterRequests.post("\(cluster.balancer)/v1/chat/completions", token: caller.bearer, json: [
                                "model": "griot", "stream": ask.stream, "messages": [["role": "user", "content": ask.question]],
                            ] as [String: Any])
                            guard response.status == 200 else { throw ClusterError("completion answered \(response.status): \(response.text.prefix(300))") }
                            // Streamed: the citations are on the last chunk; otherwise on the reply.
                            let reply = ask.stream
                                ? (response.text.components(separatedBy: "\n\n").compactMap { frame -> [String: Any]? in
                                    guard frame.hasPrefix("data: {") else { return nil }
                                    return (try? JSONSerialization.jsonObject(with: Data(frame.dropFirst(6).utf8))) as? [String: Any]
                                }.last { $0["citations"] != nil } ?? [:])
                                : response.json
                            for citation in reply["citations"] as? [[String: Any]] ?? [] {
                                let id = citation["story_id"] as? String ?? ""
                                citations += 1
                                guard let story = oracle[id] else { continue }
                                if !story.visible(to: caller.user, families: caller.families) {
                                    leaks.append("\(id) (\(story.privacy), owner \(story.owner ?? "none"), families \(story.families.sorted())) to \(caller.user) \(caller.families.sorted())")
                                } else if story.privacy != "public" {
                                    restricted += 1
                                }
                            }
                        }
                        return (leaks, citations, restricted)
                    }
                }
                return try await group.reduce(into: (leaks: [String](), citations: 0, restricted: 0)) {
                    $0.leaks += $1.leaks; $0.citations += $1.citations; $0.restricted += $1.restricted
                }
            }) } catch { outcome = .failure(error) }
            await removeStories()
            let results = try outcome.get()
            print("cluster: 240 completions through nginx (half by API key, half streamed): \(results.citations) citations (\(results.restricted) of family-only or private stories to callers allowed them), \(results.leaks.count) leaks")
            #expect(results.leaks.isEmpty, "citations of stories their callers may not see: \(results.leaks.prefix(20))")
            #expect(results.citations > 240, "the completions really cited stories")
            #expect(results.restricted > 10, "callers allowed them were cited family-only and private stories, so the filter was tested both ways")
        }
    }
}
