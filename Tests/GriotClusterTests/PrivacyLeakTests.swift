import Foundation
import GriotTestSupport
import Testing

extension ClusterAcceptanceTests {
    /// Issue 34: the randomized 10,000-search privacy test leaks nothing on the cluster. Random
    /// stories (public, family-only for random family groups, private) are ingested through one
    /// node; 10,000 searches by random callers with random families go through nginx to every
    /// node; no result is ever a story its caller may not see.
    @Suite struct PrivacyLeakTests {
        static let words = ["flood", "levee", "train", "church", "pie", "porter", "union", "shipyard", "gumbo", "choir",
                            "march", "factory", "school", "letter", "radio", "cotton", "mine", "steel", "dance", "wedding"]
        static let users = (0..<12).map { "u-leak-\($0)" }
        static let families = (0..<6).map { "fam-leak-\($0)" }

        struct StoryAccess {
            var privacy: String
            var owner: String?
            var families: Set<String>

            /// The access rule written out apart from the service's `Viewer.maySee`, as the oracle.
            func visible(to user: String, families viewer: Set<String>) -> Bool {
                switch privacy {
                case "public": true
                case "private": owner == user
                default: owner == user || !viewer.isDisjoint(with: families)
                }
            }
        }

        @Test func tenThousandRandomSearchesThroughTheBalancerLeakNothing() async throws {
            let cluster = try await ClusterFixture.shared.running()
            var random = SplitMix64(seed: 20_261_128)
            let admin = try await cluster.token(user: "u-leak-admin", role: .admin)

            // 150 stories, written through node 1 only: the others learn of them from the change log.
            var access: [String: StoryAccess] = [:]
            var stories: [[String: Any]] = []
            for number in 0..<150 {
                let privacy = ["public", "family_only", "private"].randomElement(using: &random)!
                // Every story that is not public has an owner (a story nobody may see is refused with a warning).
                let owner = privacy == "public" && Bool.random(using: &random) ? nil : Self.users.randomElement(using: &random)!
                let groups = Set((0..<Int.random(in: privacy == "family_only" ? 1...2 : 0...2, using: &random)).map { _ in
                    Self.families.randomElement(using: &random)!
                })
                let id = "leak-\(number)"
                access[id] = StoryAccess(privacy: privacy, owner: owner, families: groups)
                var story: [String: Any] = [
                    "artifact_id": id, "title": "\(Self.words.randomElement(using: &random)!) story \(number)", "privacy": privacy,
                    "family_group_ids": groups.sorted(),
                    "transcript": (0..<40).map { _ in Self.words.randomElement(using: &random)! }.joined(separator: " ") + ".",
                ]
                story["owner_user_id"] = owner
                stories.append(story)
            }
            try await ClusterRequests.ingest(stories, through: cluster.node(1), token: admin)
            let sentinel: [String: Any] = ["artifact_id": "leak-sentinel", "title": "Sentinel", "privacy": "public",
                                           "transcript": "The zyxwvut sentinel closes the batch."]
            try await ClusterRequests.ingest([sentinel], through: cluster.node(1), token: admin)
            try await ClusterRequests.waitUntilEveryNodeFinds("leak-sentinel", query: "zyxwvut", in: cluster, token: admin)
            access["leak-sentinel"] = StoryAccess(privacy: "public", owner: nil, families: [])

            // The callers: each user with a random set of families (0 to 2), several tokens per user.
            var callers: [(user: String, families: Set<String>, token: String)] = []
            for user in Self.users {
                for _ in 0..<4 {
                    let families = Set((0..<Int.random(in: 0...2, using: &random)).map { _ in Self.families.randomElement(using: &random)! })
                    callers.append((user, families, try await cluster.token(user: user, families: families.sorted())))
                }
            }
            let (oracle, tokens) = (access, callers)
            let searches = (0..<10_000).map { _ in
                (caller: Int.random(in: 0..<callers.count, using: &random),
                 query: (0..<Int.random(in: 1...4, using: &random)).map { _ in Self.words.randomElement(using: &random)! }.joined(separator: " "),
                 k: Int.random(in: 1...50, using: &random))
            }

            let accessLog = cluster.layout.directory.appendingPathComponent("nginx/access.log")
            let logStart = (try? FileManager.default.attributesOfItem(atPath: accessLog.path)[.size] as? Int) ?? 0
            let started = ContinuousClock.now
            let lanes = 8
            let results = try await withThrowingTaskGroup(of: (leaks: [String], hits: Int, restrictedHits: Int).self) { group in
                for lane in 0..<lanes {
                    group.addTask {
                        var leaks: [String] = []
                        var hits = 0
                        var restricted = 0
                        for index in stride(from: lane, to: searches.count, by: lanes) {
                            let search = searches[index]
                            let caller = tokens[search.caller]
                            let found = try await ClusterRequests.searchStoryIDs(cluster.balancer, token: caller.token, query: search.query, k: search.k)
                            hits += found.count
                            for id in found {
                                guard let story = oracle[id] else { leaks.append("\(id) (not a story of this test) to \(caller.user)"); continue }
                                if !story.visible(to: caller.user, families: caller.families) {
                                    leaks.append("\(id) (\(story.privacy), owner \(story.owner ?? "none"), families \(story.families.sorted())) to \(caller.user) \(caller.families.sorted())")
                                } else if story.privacy != "public" {
                                    restricted += 1
                                }
                            }
                        }
                        return (leaks, hits, restricted)
                    }
                }
                return try await group.reduce(into: (leaks: [String](), hits: 0, restrictedHits: 0)) {
                    $0.leaks += $1.leaks; $0.hits += $1.hits; $0.restrictedHits += $1.restrictedHits
                }
            }
            let elapsed = started.duration(to: .now)

            // Which node answered each search, from nginx's log of this run.
            let log = try Data(contentsOf: accessLog).dropFirst(logStart)
            var perNode: [String: Int] = [:]
            for line in String(decoding: log, as: UTF8.self).split(separator: "\n") where line.contains("/api/stories/search") {
                if let range = line.range(of: "upstream=") {
                    perNode[String(line[range.upperBound...].prefix { $0 != " " }), default: 0] += 1
                }
            }
            print("cluster: 10,000 searches through nginx in \(elapsed): \(results.hits) hits (\(results.restrictedHits) of family-only or private stories to callers allowed them), \(results.leaks.count) leaks; answered per node: \(perNode.sorted { $0.key < $1.key })")

            #expect(results.leaks.isEmpty, "stories shown to callers who may not see them: \(results.leaks.prefix(20))")
            #expect(results.hits > 50_000, "the searches really returned results to check")
            #expect(results.restrictedHits > 1_000, "the callers allowed them found family-only and private stories, so the filter was tested both ways")
            for n in 1...cluster.layout.nodeCount {
                #expect(perNode["127.0.0.1:\(cluster.layout.basePort + n)", default: 0] > 1_000, "nginx spread the searches to node \(n): \(perNode)")
            }
        }
    }
}
