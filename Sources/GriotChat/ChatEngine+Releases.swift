import GriotPrompts

extension ChatEngine {
    /// The template a label names. A label a promotion moved in the database (on any node) wins
    /// over the prompts folder's releases.yaml, so every node of a shared database answers with
    /// the same production version; a version number or `latest` names a version directly. The
    /// database names a version by its number and its text's hash: a node whose prompts folder
    /// holds other text under that number refuses rather than answer with the wrong prompt.
    func template(for assistant: String, label: String) async throws -> PromptTemplate {
        if label != "latest", Int(label) == nil,
           let release = try await labels.release(of: assistant, label: label, from: chats) {
            guard let template = prompts.assistants[assistant]?.versions[release.version] else {
                throw ChatError(.invalid, "The database's `\(label)` label of \(assistant) names v\(release.version), which this node's prompts folder does not hold; deploy the same prompts/ on every node.")
            }
            guard template.textHash == release.textHash else {
                throw ChatError(.invalid, "The database's `\(label)` label of \(assistant) names v\(release.version) with another text than this node's prompts/\(assistant)/\(release.version).md; deploy the same prompts/ on every node.")
            }
            return template
        }
        return try prompts.template(for: assistant, label: label)
    }
}

extension ChatEngine {
    /// The prompt version a label (or a version number, or `latest`) of an assistant names;
    /// throws `ChatError` when it names none.
    public func promptVersion(of assistant: String, label: String) async throws -> Int {
        try await template(for: assistant, label: label).version
    }

    /// The labels a client may name an assistant's prompt by: releases.yaml's, the ones a
    /// promotion moved in the database (on any node), and `latest`.
    public func promptLabelNames(of assistant: String) async throws -> [String] {
        var names = Set(prompts.assistants[assistant]?.labels.keys.map { $0 } ?? [])
        names.insert("latest")
        names.formUnion(try await chats.promptLabels()[assistant]?.keys.map { $0 } ?? [])
        return names.sorted()
    }
}
