import Foundation
import GriotStories

/// What an ingest run found in its files, before anything is stored.
public struct StoryFileBatch: Sendable {
    /// The stories to store, one per artifact_id: when files repeat an id, the copy read last.
    public var stories: [Story] = []
    /// Why stories (or whole paths) were turned away; one story may have several problems.
    public var problems: [StoryProblem] = []
    public var warnings: [StoryProblem] = []
    public var filesRead = 0
    /// Stories turned away: one per story object (or unreadable file or JSONL line) with
    /// problems, as counted by `StoryDecoder`, so that the count matches the stories the
    /// person wrote however many problems each has.
    public var rejectedCount = 0
    /// Paths given that could not be read at all (missing, or without read permission). Kept
    /// apart from `rejectedCount` because a wrong path is not a story, yet still a failed run.
    public var unreadablePaths = 0
}

/// Finds and decodes story files: `.json`, `.jsonl` and `.ndjson` files, and folders of them
/// (searched recursively, in name order, so runs are repeatable).
///
/// ```swift
/// let batch = StoryFiles.read(["corpus"])
/// print(batch.stories.count, batch.rejectedCount, batch.unreadablePaths)
/// ```
public enum StoryFiles {
    static let extensions: Set<String> = ["json", "jsonl", "ndjson"]

    /// Reads every story file under `paths`. When two files hold the same artifact_id, the one
    /// read later replaces the earlier, as a later ingest would, and a warning names both.
    public static func read(_ paths: [String]) -> StoryFileBatch {
        var batch = StoryFileBatch()
        let decoder = StoryDecoder()
        // A file named twice (itself and its folder, say) is read once: reading it again would
        // double its problems and report it as replacing itself.
        var seenFiles = Set<String>()
        // Where each stored story came from, so a later copy can replace it and say so.
        var storyIndex: [String: (index: Int, file: String)] = [:]
        var replaced = Set<Int>()
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                batch.problems.append(StoryProblem(file: path, message: "does not exist; check the path (folders are searched for .json and .jsonl files)"))
                batch.unreadablePaths += 1
                continue
            }
            let files = isDirectory.boolValue ? storyFiles(under: path) : [path]
            if isDirectory.boolValue, files.isEmpty {
                batch.warnings.append(StoryProblem(file: path, message: "holds no .json or .jsonl files; nothing to ingest there"))
            }
            for file in files where seenFiles.insert(URL(fileURLWithPath: file).standardizedFileURL.resolvingSymlinksInPath().path).inserted {
                guard let data = FileManager.default.contents(atPath: file) else {
                    batch.problems.append(StoryProblem(file: file, message: "cannot be read; check its permissions"))
                    batch.unreadablePaths += 1
                    continue
                }
                let decoded = decoder.decode(data, fileName: file)
                batch.filesRead += 1
                batch.problems += decoded.problems
                batch.warnings += decoded.warnings
                batch.rejectedCount += decoded.rejectedCount
                for story in decoded.stories {
                    if let earlier = storyIndex[story.artifactID] {
                        replaced.insert(earlier.index)
                        batch.warnings.append(StoryProblem(
                            file: file, artifactID: story.artifactID, field: "artifact_id",
                            message: "is also used in \(earlier.file); the copy in \(file) replaces the one in \(earlier.file) (give each story its own artifact_id if they differ)"))
                    }
                    storyIndex[story.artifactID] = (batch.stories.count, file)
                    batch.stories.append(story)
                }
            }
        }
        if !replaced.isEmpty {
            batch.stories = batch.stories.enumerated().filter { !replaced.contains($0.offset) }.map(\.element)
        }
        return batch
    }

    static func storyFiles(under directory: String) -> [String] {
        let root = URL(fileURLWithPath: directory)
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var files: [String] = []
        for case let url as URL in walker where extensions.contains(url.pathExtension.lowercased()) {
            files.append(url.path)
        }
        return files.sorted()
    }
}
