import Foundation
import GriotArchive
import GriotSearch
import GriotStore
import GriotStories
import Testing

/// Several nodes on one database: each holds its own in-memory index, and each follows the
/// database's story change log (`StoryArchive.catchUp`), so what one node writes the others
/// find, or stop finding, once they have caught up. Two archives on one database stand for
/// two nodes; on PostgreSQL they are what the cluster runs.
@Suite struct IndexReplicaTests {
    let everyone = SearchFilter(viewer: .anonymous)
    let bm25 = RetrievalSettings(mode: .lexical)

    static func story(_ id: String, privacy: Privacy = .public, text: String) -> Story {
        Story(artifactID: id, title: "Story \(id)", privacy: privacy, ownerUserID: "u-ruth",
              familyGroupIDs: ["fam-carter"], transcript: Transcript(text: text))
    }

    func hits(_ archive: StoryArchive, _ query: String, _ filter: SearchFilter? = nil) async throws -> [String] {
        try await archive.search(query, filter: filter ?? everyone, settings: bm25).results.map(\.passage.storyID)
    }

    @Test("A story ingested, made private and deleted through one node is found, hidden and gone on another after it catches up",
          arguments: StoreBackend.allCases)
    func aSecondNodeFollowsTheChangeLog(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let nodeA = StoryArchive(storage: storage)
            let nodeB = StoryArchive(storage: storage)
            _ = try await nodeA.ingest([Self.story("s-1", text: "The levee broke at Mounds Landing and Zofia Łukasiewicz rowed to the church.")])
            // B loads its index from the database: it holds what A wrote so far.
            #expect(try await hits(nodeB, "levee") == ["s-1"])

            _ = try await nodeA.ingest([Self.story("s-2", text: "李秀英 kept the ferry ledger when the river froze over.")])
            #expect(try await hits(nodeB, "ferry ledger").isEmpty, "B has not looked at the log yet")
            let applied = try #require(try await nodeB.catchUp())
            #expect(applied == (try await storage.stories.lastChangeSequence()))
            #expect(try await hits(nodeB, "ferry ledger") == ["s-2"])
            #expect(try await hits(nodeB, "李秀英") == ["s-2"], "the name in Han characters is searched as written")

            // Made private through A: an anonymous viewer on B no longer finds it; its owner does.
            _ = try await nodeA.ingest([Self.story("s-1", privacy: .private, text: "The levee broke at Mounds Landing and Zofia Łukasiewicz rowed to the church.")])
            try await nodeB.catchUp()
            #expect(try await hits(nodeB, "levee").isEmpty)
            #expect(try await hits(nodeB, "levee", SearchFilter(viewer: Viewer(userID: "u-ruth"))) == ["s-1"])

            // Deleted through A: gone on B, for everyone.
            #expect(try await nodeA.delete(storyID: "s-2"))
            try await nodeB.catchUp()
            #expect(try await hits(nodeB, "ferry ledger", SearchFilter(viewer: Viewer(userID: "u-ruth"))).isEmpty)
            #expect(try await nodeB.appliedChange() == (try await storage.stories.lastChangeSequence()))
        }
    }

    @Test("Catching up twice, or on a node that wrote the change itself, changes nothing", arguments: StoreBackend.allCases)
    func catchingUpIsIdempotent(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let node = StoryArchive(storage: storage)
            _ = try await node.ingest([Self.story("s-1", text: "The mill whistle blew at six every morning.")])
            #expect(try await hits(node, "whistle") == ["s-1"])
            let first = try await node.catchUp()
            let second = try await node.catchUp()
            #expect(first == second)
            #expect(try await hits(node, "whistle") == ["s-1"])
            #expect(try await node.indexedPassageCount() == (try await storage.stories.passageCount()))
        }
    }
}
