import Foundation
import Yams

/// Every assistant's prompts, loaded and checked together at start.
///
/// ```swift
/// let registry = try PromptRegistry.load(folder: URL(fileURLWithPath: "prompts"))
/// let template = try registry.template(for: "coach", label: "production")
/// ```
/// The folder holds one folder per assistant with `<version>.md` files and a `releases.yaml`:
/// ```yaml
/// production: 2          # the label `production` picks version 2; `latest` is always the highest
/// published:             # the text hash of each published version: these files may not change
///   1: sha256:…
///   2: sha256:…
/// ```
public struct PromptRegistry: Sendable {
    public static let releasesFile = "releases.yaml"

    public let folder: URL
    public private(set) var assistants: [String: Assistant]

    public struct Assistant: Sendable {
        public var id: String
        public var versions: [Int: PromptTemplate]
        /// Labels written in releases.yaml (`production: 2`); `latest` is computed.
        public var labels: [String: Int]
        public var published: [Int: String]

        public var latest: Int { versions.keys.max() ?? 0 }
        /// False for fixed replies (`kind: response`), which nobody chats with.
        public var isChatAssistant: Bool { versions.values.allSatisfy { $0.kind == .assistant } }
    }

    /// The assistants a person can chat with, by id.
    public var chatAssistants: [String] { assistants.values.filter(\.isChatAssistant).map(\.id).sorted() }

    /// Reads and checks every prompt. All problems found are reported at once, each naming its file.
    public static func load(folder: URL) throws -> PromptRegistry {
        var problems: [PromptError] = []
        var assistants: [String: Assistant] = [:]
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: folder.path) else {
            throw PromptError(file: folder.path, "is not a readable folder; point GRIOT_PROMPTS at the checkout's prompts/ folder")
        }
        for name in names.sorted() {
            var isFolder: ObjCBool = false
            let assistantFolder = folder.appendingPathComponent(name)
            guard manager.fileExists(atPath: assistantFolder.path, isDirectory: &isFolder), isFolder.boolValue else { continue }
            var assistant = Assistant(id: name, versions: [:], labels: [:], published: [:])
            for file in ((try? manager.contentsOfDirectory(atPath: assistantFolder.path)) ?? []).sorted() where file.hasSuffix(".md") {
                let path = "\(folder.lastPathComponent)/\(name)/\(file)"
                guard let version = Int(file.dropLast(3)), version > 0 else {
                    problems.append(PromptError(file: path, "is not named <version>.md (a whole number, e.g. 3.md); rename it or move it out of the prompts folder"))
                    continue
                }
                do {
                    let data = try Data(contentsOf: assistantFolder.appendingPathComponent(file))
                    assistant.versions[version] = try PromptFileParser(file: path).parse(data, expectedAssistant: name, expectedVersion: version)
                } catch let error as PromptError {
                    problems.append(error)
                } catch {
                    problems.append(PromptError(file: path, "cannot be read: \(error)"))
                }
            }
            do {
                try readReleases(folder: assistantFolder, into: &assistant, displayPath: "\(folder.lastPathComponent)/\(name)/\(releasesFile)")
            } catch let error as PromptError {
                problems.append(error)
            }
            problems += checkReleases(assistant, displayFolder: "\(folder.lastPathComponent)/\(name)")
            if !assistant.versions.isEmpty { assistants[name] = assistant }
        }
        if assistants.isEmpty && problems.isEmpty {
            problems.append(PromptError(file: folder.path, "holds no prompts (expected <assistant>/<version>.md files)"))
        }
        guard problems.isEmpty else { throw PromptProblems(problems: problems) }
        return PromptRegistry(folder: folder, assistants: assistants)
    }

    /// The version a label picks: `latest`, a label from releases.yaml, or a version number.
    public func template(for assistant: String, label: String = "production") throws -> PromptTemplate {
        guard let entry = assistants[assistant] else {
            throw PromptError(file: folder.lastPathComponent, "has no assistant `\(assistant)`; assistants: \(assistants.keys.sorted().joined(separator: ", "))")
        }
        let version: Int?
        if label == "latest" {
            version = entry.latest
        } else if let number = Int(label) {
            version = number
        } else {
            version = entry.labels[label]
        }
        guard let version, let template = entry.versions[version] else {
            let labels = (["latest"] + entry.labels.keys.sorted()).joined(separator: ", ")
            throw PromptError(file: "\(folder.lastPathComponent)/\(assistant)",
                              "has no version for `\(label)`; use a version (\(entry.versions.keys.sorted().map(String.init).joined(separator: ", "))) or a label (\(labels))")
        }
        return template
    }

    /// Publishes a version (its text becomes immutable) and, optionally, moves a label to it.
    /// Writes releases.yaml; the caller reloads the registry to see the change.
    public func publish(assistant: String, version: Int, label: String? = nil) throws {
        guard var entry = assistants[assistant], let template = entry.versions[version] else {
            throw PromptError(file: "\(folder.lastPathComponent)/\(assistant)", "has no version \(version) to publish")
        }
        entry.published[version] = template.textHash
        if let label {
            guard label != "latest" else { throw PromptError(file: Self.releasesFile, "`latest` is computed and cannot be moved") }
            entry.labels[label] = version
        }
        try Self.writeReleases(entry, to: folder.appendingPathComponent(assistant).appendingPathComponent(Self.releasesFile))
    }

    private static func readReleases(folder: URL, into assistant: inout Assistant, displayPath: String) throws {
        let url = folder.appendingPathComponent(releasesFile)
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        let loaded: Any?
        do { loaded = try Yams.load(yaml: text) } catch {
            throw PromptError(file: displayPath, "is not valid YAML: \(error)")
        }
        guard let fields = loaded as? [String: Any] else {
            if loaded == nil { return }
            throw PromptError(file: displayPath, "must hold labels (`production: 1`) and `published:` hashes")
        }
        for (key, value) in fields {
            if key == "published" {
                // Each key parsed once: one that is no version number (or too large for an Int) is refused.
                let versions = (value as? [AnyHashable: Any])?.map { (Int("\($0.key.base)"), "\($0.value)") }
                guard let versions, versions.allSatisfy({ $0.0 != nil }) else {
                    throw PromptError(file: displayPath, "`published:` must map version numbers to sha256 hashes")
                }
                for case let (version?, hash) in versions { assistant.published[version] = hash }
            } else {
                guard let version = value as? Int else {
                    throw PromptError(file: displayPath, "label `\(key)` must name a version number, not \(value)")
                }
                guard key != "latest" else {
                    throw PromptError(file: displayPath, "`latest` is computed (the highest version); remove it")
                }
                assistant.labels[key] = version
            }
        }
    }

    private static func checkReleases(_ assistant: Assistant, displayFolder: String) -> [PromptError] {
        var problems: [PromptError] = []
        for (version, hash) in assistant.published.sorted(by: { $0.key < $1.key }) {
            let file = "\(displayFolder)/\(version).md"
            guard let template = assistant.versions[version] else {
                problems.append(PromptError(file: file, "is published (\(releasesFile)) but missing; restore it from version control"))
                continue
            }
            if template.textHash != hash {
                problems.append(PromptError(file: file, "changed after version \(version) was published (published \(hash.prefix(19))…, now \(template.textHash.prefix(19))…); a published version is immutable: restore it and put the change in \(displayFolder)/\(assistant.latest + 1).md"))
            }
        }
        for (label, version) in assistant.labels.sorted(by: { $0.key < $1.key }) {
            if assistant.versions[version] == nil {
                problems.append(PromptError(file: "\(displayFolder)/\(releasesFile)", "label `\(label)` names version \(version), which does not exist"))
            } else if label == "production", assistant.published[version] == nil {
                problems.append(PromptError(file: "\(displayFolder)/\(releasesFile)", "label `production` names version \(version), which is not published; publish it (griot prompts publish \(assistant.id) \(version))"))
            }
        }
        return problems
    }

    private static func writeReleases(_ assistant: Assistant, to url: URL) throws {
        var lines = [
            "# Which version each label picks, and the text hash of every published version.",
            "# A published version is immutable: change the text under a new version number.",
            "# Written by `griot prompts publish`; `latest` is always the highest version.",
        ]
        for (label, version) in assistant.labels.sorted(by: { $0.key < $1.key }) { lines.append("\(label): \(version)") }
        lines.append("published:")
        for (version, hash) in assistant.published.sorted(by: { $0.key < $1.key }) { lines.append("  \(version): \(hash)") }
        let temporary = url.appendingPathExtension("partial")
        try (lines.joined(separator: "\n") + "\n").write(to: temporary, atomically: false, encoding: .utf8)
        // rename(2) replaces the old file in one step, so a reader never sees half a file.
        guard rename(temporary.path, url.path) == 0 else {
            throw PromptError(file: url.path, "could not be written (errno \(errno)); check the folder's permissions")
        }
    }
}
