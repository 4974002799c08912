import Foundation
import GriotStore
import GriotStories
import Testing

/// The story change log both backends keep: one entry per story for each write that changes
/// what a search could return, in commit order, written in the same transaction as the change.
@Suite struct StoryChangeConformanceTests {
    static func story(_ id: String, _ text: String) -> (story: Story, passages: [Passage]) {
        let story = Story(artifactID: id, title: "Story \(id)", privacy: .public, ownerUserID: "u-ruth", transcript: Transcript(text: text))
        return (story, PassageSplitter().passages(of: story))
    }

    @Test("Saves, vectors, deletes and a reindex each append to the log, in order; an unchanged save appends nothing",
          arguments: StoreBackend.allCases)
    func writesAppendToTheLog(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let stories = storage.stories
            #expect(try await stories.lastChangeSequence() == 0)
            let a = Self.story("s-a", "Aunt Lil ran the store on Water Street.")
            let b = Self.story("s-b", "The choir sang at the levee.")
            try await stories.save([a, b], revision: "r1")
            var log = try await stories.changes(after: 0, limit: 100)
            #expect(log.map(\.storyID) == ["s-a", "s-b"] && log.allSatisfy { $0.kind == .story })
            #expect(log.map(\.sequence) == log.map(\.sequence).sorted() && Set(log.map(\.sequence)).count == 2)

            try await stories.save([a], revision: "r1")
            #expect(try await stories.changes(after: log.last!.sequence, limit: 100).isEmpty, "an unchanged story is no change")

            try await stories.saveEmbeddings(b.passages.map { (passageID: $0.id, vector: [0.25, -1, 3]) }, model: "m")
            #expect(try await stories.delete(storyID: "s-a"))
            try await stories.deleteAllEmbeddings()
            log = try await stories.changes(after: log.last!.sequence, limit: 100)
            #expect(log.map(\.storyID) == ["s-b", "s-a", ""])
            #expect(log.map(\.kind) == [.story, .story, .all])
            #expect(try await stories.lastChangeSequence() == log.last!.sequence)
            #expect(try await stories.changes(after: 0, limit: 2).count == 2, "the limit holds")

            // Pruning keeps the newest entry, so the position a node holds never runs past the log.
            let pruned = try await stories.pruneChanges(olderThan: 0, now: Date().addingTimeInterval(60))
            #expect(pruned == 4)
            #expect(try await stories.lastChangeSequence() == log.last!.sequence)
        }
    }

    @Test("On PostgreSQL a follower waiting for a change is woken by the commit (NOTIFY), not by its timeout")
    func aCommitWakesTheFollower() async throws {
        try await StoreBackend.postgres.withStorage { storage in
            let stories = storage.stories
            // The first wait opens the LISTEN connection; let it settle before the write.
            await stories.waitForChange(timeout: .milliseconds(300))
            let started = ContinuousClock.now
            async let woken: Void = stories.waitForChange(timeout: .seconds(20))
            try await Task.sleep(for: .milliseconds(100))
            try await stories.save([Self.story("s-a", "The ferry ran until the river froze.")], revision: "r1")
            await woken
            #expect(ContinuousClock.now - started < .seconds(10), "woken at the commit, long before the 20 s timeout")
        }
    }
}
