import Foundation
import GriotArchive
import GriotStories
import GriotTestSupport
import Testing

/// An ingest run counts what the person wrote: each rejected story once, a wrong path as a
/// wrong path, and a story repeated across files as replaced, with both files named.
@Suite struct StoryFilesTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("griot-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func write(_ name: String, _ text: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func aMissingPathIsUnreadableNotARejectedStory() throws {
        let missing = directory.appendingPathComponent("missing.json").path
        let batch = StoryFiles.read([missing])
        #expect(batch.rejectedCount == 0)
        #expect(batch.unreadablePaths == 1)
        #expect(batch.problems.first?.description == "\(missing): does not exist; check the path (folders are searched for .json and .jsonl files)")
    }

    @Test func rejectedStoriesAreCountedOncePerStoryAcrossFiles() throws {
        let array = try write("array.json", #"[{"title": "No id"}, {"title": "No id either"}, {"artifact_id": "ok", "title": "OK", "transcript": "x"}]"#)
        let lines = try write("lines.jsonl", "{broken\n" + #"{"artifact_id": "bad", "title": "Bad", "privacy": "friends", "transcript": "x"}"#)
        let batch = StoryFiles.read([array, lines])
        #expect(batch.stories.map(\.artifactID) == ["ok"])
        #expect(batch.rejectedCount == 4)
        #expect(batch.unreadablePaths == 0)
        #expect(batch.problems.contains { $0.description.hasPrefix("\(array)[1]: field \"artifact_id\": is missing") })
    }

    @Test func theSameIdInTwoFilesKeepsTheLaterCopyAndNamesBothFiles() throws {
        let first = try write("a/first.json", #"{"artifact_id": "x", "title": "First", "privacy": "public", "transcript": "one"}"#)
        let second = try write("b/second.json", #"{"artifact_id": "x", "title": "Second", "privacy": "public", "transcript": "two"}"#)
        let batch = StoryFiles.read([directory.path])
        #expect(batch.stories.map(\.title) == ["Second"])
        let warning = try #require(batch.warnings.first { $0.artifactID == "x" })
        #expect(warning.file == second)
        #expect(warning.message.contains("the copy in \(second) replaces the one in \(first)"))
    }

    @Test func aFileNamedTwiceIsReadOnce() throws {
        let file = try write("one.json", #"{"artifact_id": "x", "title": "T", "privacy": "nobody", "transcript": "x"}"#)
        let batch = StoryFiles.read([directory.path, file])
        #expect(batch.filesRead == 1)
        #expect(batch.rejectedCount == 1)
        #expect(batch.warnings.isEmpty)
    }

    @Test func aRejectedLastCopyStoresNothingOfThatStory() async throws {
        let file = try write("privacy.jsonl", [
            #"{"artifact_id": "x", "title": "T", "privacy": "public", "transcript": "We kept the deed in the Bible."}"#,
            #"{"artifact_id": "x", "title": "T", "privacy": "Family Only", "transcript": "We kept the deed in the Bible."}"#,
        ].joined(separator: "\n"))
        let batch = StoryFiles.read([file])
        #expect(batch.stories.isEmpty)
        #expect(batch.rejectedCount == 2)
        let archive = try StoryArchive(storage: await TestDatabase.storage())
        try await archive.ingest(batch.stories)
        #expect(try await archive.store.storyCount() == 0)
    }
}
