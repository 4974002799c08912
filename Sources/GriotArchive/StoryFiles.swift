import Foundation
import GriotStories

/// What an ingest run found in its files, before anything is stored.
public struct StoryFileBatch: Sendable {
    public var stories: [Story] = []
    public var problems: [StoryProblem] = []
    public var warnings: [StoryProblem] = []
    public var filesRead = 0

    /// Stories turned away: one per story object (or unreadable file or line) with problems.
    public var rejectedCount: Int {
        Set(problems.map { "\($0.file)|\($0.line ?? 0)|\($0.artifactID ?? "")" }).count
    }
}

/// Finds and decodes story files: `.json`, `.jsonl` and `.ndjson` files, and folders of them
/// (searched recursively, in name order, so runs are repeatable).
///
/// ```swift
/// let batch = StoryFiles.read(["corpus"])
/// print(batch.stories.count, batch.problems.count)
/// ```
public enum StoryFiles {
    static let extensions: Set<String> = ["json", "jsonl", "ndjson"]

    public static func read(_ paths: [String]) -> StoryFileBatch {
        var batch = StoryFileBatch()
        let decoder = StoryDecoder()
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                batch.problems.append(StoryProblem(file: path, message: "does not exist; check the path (folders are searched for .json and .jsonl files)"))
                continue
            }
            let files = isDirectory.boolValue ? storyFiles(under: path) : [path]
            if isDirectory.boolValue, files.isEmpty {
                batch.warnings.append(StoryProblem(file: path, message: "holds no .json or .jsonl files; nothing to ingest there"))
            }
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    batch.problems.append(StoryProblem(file: file, message: "cannot be read; check its permissions"))
                    continue
                }
                let decoded = decoder.decode(data, fileName: file)
                batch.filesRead += 1
                batch.stories += decoded.stories
                batch.problems += decoded.problems
                batch.warnings += decoded.warnings
            }
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
