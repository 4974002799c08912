import Crypto
import Foundation
import Yams

/// Reads one prompt file: YAML front matter between `---` lines, then `## ` sections.
///
/// ```markdown
/// ---
/// id: griot
/// version: 2
/// created: 2026-11-22
/// description: Answers from the family's stories, with citations.
/// ---
/// ## system
/// You are the Griot ...
/// ## command: quiz
/// ...
/// ```
/// A file with `kind: response` is a fixed reply (the crisis template) rather than an assistant:
/// its text is the `## reply` section, with the same placeholders, and no model is asked.
/// Every problem is reported with the file's name and, where there is one, the line.
struct PromptFileParser {
    static let topKeys: Set<String> = ["id", "version", "created", "description", "kind", "model", "retrieval", "budget", "safety"]
    static let modelKeys: Set<String> = ["model", "temperature", "encoding"]
    static let retrievalKeys: Set<String> = ["k", "mode", "fusion", "lexical_weight", "rrf_k"]
    static let budgetKeys: Set<String> = ["total", "reply_reserve", "history_messages", "shares"]
    static let shareKeys: Set<String> = ["instructions", "profile", "course"]
    static let encodings: Set<String> = ["cl100k_base", "o200k_base"]

    var file: String

    func parse(_ data: Data, expectedAssistant: String, expectedVersion: Int) throws -> PromptTemplate {
        guard let text = String(data: data, encoding: .utf8) else {
            throw PromptError(file: file, "is not UTF-8 text; save it as UTF-8")
        }
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.first?.trimmingCharacters(in: .whitespaces) == "---",
              let end = lines.dropFirst().firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "---" }) else {
            throw PromptError(file: file, "has no front matter; start the file with a line `---`, the fields (id, version, created, description), and another `---`")
        }
        let front = try frontMatter(lines[1..<end].joined(separator: "\n"))
        let body = Array(lines[(end + 1)...])

        let id = try string(front, "id")
        guard id == expectedAssistant else {
            throw PromptError(file: file, "says id: \(id), but it is in the folder of assistant \(expectedAssistant); make them agree")
        }
        guard let version = front["version"] as? Int, version > 0 else {
            throw PromptError(file: file, "needs `version:` as a whole number above 0 (the file is named after it)")
        }
        guard version == expectedVersion else {
            throw PromptError(file: file, "says version: \(version), but the file is named \(expectedVersion).md; make them agree")
        }
        let created = try string(front, "created")
        let description = try string(front, "description")
        let kind: PromptKind
        if let value = front["kind"] {
            guard let parsed = PromptKind(rawValue: "\(value)") else {
                throw PromptError(file: file, "kind: \(value) is not a kind; use `assistant` (the default) or `response` (a fixed reply)")
            }
            kind = parsed
        } else {
            kind = .assistant
        }
        var template = PromptTemplate(
            assistant: id, version: version, created: created, description: description, kind: kind,
            model: try model(front["model"]), retrieval: try retrieval(front["retrieval"]), budget: try budget(front["budget"]),
            safety: try safety(front["safety"]), sections: try sections(body, firstLine: end + 2, kind: kind),
            file: file, textHash: "sha256:" + SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined())
        if template.budget.replyReserve >= template.budget.total {
            throw PromptError(file: file, "budget.reply_reserve (\(template.budget.replyReserve)) must be below budget.total (\(template.budget.total))")
        }
        template.file = file
        return template
    }

    private func frontMatter(_ yaml: String) throws -> [String: Any] {
        let loaded: Any?
        do {
            loaded = try Yams.load(yaml: yaml)
        } catch {
            throw PromptError(file: file, "front matter is not valid YAML: \(error)")
        }
        guard let dictionary = loaded as? [String: Any] else {
            throw PromptError(file: file, "front matter must be YAML fields (`id: griot` ...)")
        }
        try rejectUnknown(dictionary, allowed: Self.topKeys, in: "front matter")
        return dictionary
    }

    private func rejectUnknown(_ dictionary: [String: Any], allowed: Set<String>, in place: String) throws {
        for key in dictionary.keys.sorted() where !allowed.contains(key) {
            throw PromptError(file: file, "unknown field `\(key)` in \(place); the fields are \(allowed.sorted().joined(separator: ", "))")
        }
    }

    private func string(_ front: [String: Any], _ key: String) throws -> String {
        guard let value = front[key] else {
            throw PromptError(file: file, "is missing the field `\(key)` in its front matter")
        }
        // YAML reads `created: 2026-11-22` as a date; keep what the author wrote.
        if let date = value as? Date {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate]
            return formatter.string(from: date)
        }
        let text = "\(value)".trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw PromptError(file: file, "has an empty `\(key)`") }
        return text
    }

    private func block(_ value: Any?, _ name: String, allowed: Set<String>) throws -> [String: Any] {
        guard let value else { return [:] }
        guard let dictionary = value as? [String: Any] else {
            throw PromptError(file: file, "`\(name):` must hold fields (\(allowed.sorted().joined(separator: ", ")))")
        }
        try rejectUnknown(dictionary, allowed: allowed, in: "`\(name):`")
        return dictionary
    }

    private func number(_ dictionary: [String: Any], _ key: String, in name: String, range: ClosedRange<Double>) throws -> Double? {
        guard let value = dictionary[key] else { return nil }
        let number = (value as? Double) ?? (value as? Int).map(Double.init)
        guard let number, range.contains(number) else {
            throw PromptError(file: file, "`\(name).\(key)` must be a number in \(range.lowerBound)...\(range.upperBound), not \(value)")
        }
        return number
    }

    private func model(_ value: Any?) throws -> ModelPolicy {
        let fields = try block(value, "model", allowed: Self.modelKeys)
        var policy = ModelPolicy()
        policy.model = fields["model"].map { "\($0)" }
        policy.temperature = try number(fields, "temperature", in: "model", range: 0...2)
        if let encoding = fields["encoding"] {
            guard Self.encodings.contains("\(encoding)") else {
                throw PromptError(file: file, "`model.encoding` must be one of \(Self.encodings.sorted().joined(separator: ", ")), not \(encoding)")
            }
            policy.encoding = "\(encoding)"
        }
        return policy
    }

    private func retrieval(_ value: Any?) throws -> RetrievalPolicy {
        let fields = try block(value, "retrieval", allowed: Self.retrievalKeys)
        var policy = RetrievalPolicy()
        if let k = try number(fields, "k", in: "retrieval", range: 0...50) { policy.k = Int(k) }
        if let mode = fields["mode"] {
            guard ["hybrid", "bm25", "dense"].contains("\(mode)") else {
                throw PromptError(file: file, "`retrieval.mode` must be hybrid, bm25 or dense, not \(mode)")
            }
            policy.mode = "\(mode)"
        }
        if let fusion = fields["fusion"] {
            guard ["weighted", "rrf"].contains("\(fusion)") else {
                throw PromptError(file: file, "`retrieval.fusion` must be weighted or rrf, not \(fusion)")
            }
            policy.fusion = "\(fusion)"
        }
        if let weight = try number(fields, "lexical_weight", in: "retrieval", range: 0...1) { policy.lexicalWeight = weight }
        if let k = try number(fields, "rrf_k", in: "retrieval", range: 1...1000) { policy.rrfK = Int(k) }
        return policy
    }

    private func budget(_ value: Any?) throws -> BudgetPolicy {
        let fields = try block(value, "budget", allowed: Self.budgetKeys)
        var policy = BudgetPolicy()
        if let total = try number(fields, "total", in: "budget", range: 256...1_000_000) { policy.total = Int(total) }
        if let reserve = try number(fields, "reply_reserve", in: "budget", range: 16...1_000_000) { policy.replyReserve = Int(reserve) }
        if let history = try number(fields, "history_messages", in: "budget", range: 0...200) { policy.historyMessages = Int(history) }
        let shares = try block(fields["shares"], "budget.shares", allowed: Self.shareKeys)
        for key in shares.keys {
            policy.shares[key] = try number(shares, key, in: "budget.shares", range: 0...1)
        }
        return policy
    }

    private func safety(_ value: Any?) throws -> Set<SafetyStage> {
        guard let value else { return [] }
        guard let names = value as? [Any] else {
            throw PromptError(file: file, "`safety:` must be a list of stages, e.g. [moderation, pii, citations]")
        }
        var stages = Set<SafetyStage>()
        for name in names {
            guard let stage = SafetyStage(rawValue: "\(name)") else {
                throw PromptError(file: file, "unknown safety stage `\(name)`; the stages are \(SafetyStage.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            stages.insert(stage)
        }
        return stages
    }

    /// Splits the body at `## ` headings: `system`, `role: NAME`, `command: NAME`, `language`, `no_content`.
    private func sections(_ lines: [String], firstLine: Int, kind: PromptKind) throws -> PromptSections {
        let main = kind == .response ? "reply" : "system"
        var system: String?
        var result = PromptSections(system: "")
        var heading: (text: String, line: Int)?
        var buffer: [String] = []

        func close() throws {
            let text = buffer.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
            buffer = []
            guard let (title, line) = heading else {
                if !text.isEmpty {
                    throw PromptError(file: file, "line \(firstLine): text before the first section; start the body with `## \(main)`")
                }
                return
            }
            guard !text.isEmpty else { throw PromptError(file: file, "line \(line): the section `## \(title)` is empty") }
            let parts = title.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            switch (parts[0], parts.count == 2 ? parts[1] : nil) {
            case (main, nil) where system == nil: system = text
            case ("language", nil) where result.language == nil: result.language = text
            case ("no_content", nil) where result.noContent == nil: result.noContent = text
            case ("role", let name?) where !name.isEmpty && result.roles[name] == nil:
                result.roles[name] = text
                if result.defaultRole == nil { result.defaultRole = name }
            case ("command", let name?) where !name.isEmpty && result.commands[name] == nil:
                result.commands[name] = text
            default:
                throw PromptError(file: file, "line \(line): `## \(title)` is not a section name or is repeated; use \(main), role: NAME, command: NAME, language or no_content, once each")
            }
        }

        for (offset, line) in lines.enumerated() {
            if line.hasPrefix("## ") {
                try close()
                heading = (String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces), firstLine + offset)
            } else {
                buffer.append(line)
            }
        }
        try close()
        guard let system else { throw PromptError(file: file, "has no `## \(main)` section") }
        result.system = system

        let body = lines.joined(separator: "\n")
        for (name, line) in PromptPlaceholders.names(in: body) where PromptPlaceholders.known[name] == nil {
            throw PromptError(file: file, "line \(firstLine + line - 1): unknown placeholder {{\(name)}}; the placeholders are \(PromptPlaceholders.known.keys.sorted().joined(separator: ", "))")
        }
        return result
    }
}
