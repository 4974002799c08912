import Foundation

/// Prompt releases kept in the database: the labels a promotion moves (`production: 3`) and the
/// log of every promotion attempt, so that a version promoted through one node is production
/// on every node of the database. The prompt files themselves ship with the service, the same
/// on every node; a label names a version by number and by the hash of its text.
public protocol PromptReleaseStore: Sendable {
    /// Every label moved through the database: assistant, then label, then (version, text hash).
    func promptLabels() async throws -> [String: [String: PromptRelease]]
    /// Moves `label` of `assistant` to `version`, whose text hashes to `textHash`.
    func setPromptLabel(assistant: String, label: String, release: PromptRelease, at: Date) async throws
    /// Appends one promotion attempt (its JSON record) to the assistant's log.
    func appendPromotion(assistant: String, record: String, at: Date) async throws
    /// The assistant's promotion records, oldest first.
    func promotions(assistant: String) async throws -> [String]
}

/// The version a label names, and the hash of that version's text.
public struct PromptRelease: Sendable, Hashable {
    public var version: Int
    public var textHash: String

    public init(version: Int, textHash: String) {
        self.version = version
        self.textHash = textHash
    }
}
