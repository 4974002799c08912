import Foundation
import GriotArchive
import GriotChat
import GriotEval
import GriotPrompts
import GriotStore
import Hummingbird

/// Prompt releases for the operators' console: each assistant's versions, labels and hashes
/// with its promotion attempts (`griot prompts list` and the promotion log), and a promotion
/// through the same eval gates as `griot prompts promote` (`PromptPromotion` on an `EvalBench`).
extension OpsRoutes {
    func addPrompts(to router: RouterGroup<GriotRequestContext>) {
        router.get("prompts", use: prompts)
        router.post("prompts/:assistant/promote", use: promote)
    }

    struct Releases: ResponseEncodable {
        var assistants: [AssistantReleases]
    }

    struct AssistantReleases: Encodable {
        var id: String
        var latest: Int
        var versions: [Version]
        var promotions: [PromptPromotion.Record]
    }

    struct Version: Encodable {
        var version: Int
        var state: String
        var hash: String
        var created: String
        /// The database's promoted labels (every node answers with those) and releases.yaml's
        /// for the labels the database does not hold, and `latest`.
        var labels: [String]
    }

    /// Every assistant of the prompts folder as it is now (a version written since the service
    /// started shows as a draft), with the labels the database moved and its promotion log.
    @Sendable func prompts(_ request: Request, context: GriotRequestContext) async throws -> Releases {
        let registry = try currentRegistry()
        let promoted = try await engine.chats.promptLabels()
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var assistants: [AssistantReleases] = []
        for (id, assistant) in registry.assistants.sorted(by: { $0.key < $1.key }) {
            let database = promoted[id] ?? [:]
            var labels = assistant.labels.filter { database[$0.key] == nil }
            for (label, release) in database { labels[label] = release.version }
            let versions = assistant.versions.sorted(by: { $0.key < $1.key }).map { version, template in
                var names = labels.filter { $0.value == version }.map(\.key).sorted()
                if version == assistant.latest { names.append("latest") }
                return Version(version: version, state: assistant.published[version] == nil ? "draft" : "published",
                               hash: template.textHash, created: template.created, labels: names)
            }
            // A record this build cannot read (written by a later one) is left out rather than failing the page.
            let promotions = try await engine.chats.promotions(assistant: id).compactMap {
                try? decoder.decode(PromptPromotion.Record.self, from: Data($0.utf8))
            }
            assistants.append(AssistantReleases(id: id, latest: assistant.latest, versions: versions, promotions: promotions))
        }
        return Releases(assistants: assistants)
    }

    struct PromoteBody: Decodable {
        var version: Int?
        var allowOffline: Bool?

        enum CodingKeys: String, CodingKey {
            case version
            case allowOffline = "allow_offline"
        }
    }

    /// Runs the assistant's eval files with the version and moves `production` in the database
    /// only if every gate passes; the attempt is recorded with the caller's subject as `by`.
    /// 200 with the record when promoted, 409 `promotion_refused` with it in `details` otherwise.
    @Sendable func promote(_ request: Request, context: GriotRequestContext) async throws -> PromptPromotion.Record {
        let caller = try context.requireCaller()
        let assistant = try context.parameters.require("assistant")
        let body = try await request.decodeJSON(as: PromoteBody.self, context: context, shape: #"{"version": 2, "allow_offline": false}"#)
        let registry = try currentRegistry()
        guard let entry = registry.assistants[assistant], entry.isChatAssistant else {
            throw APIError(.badRequest, code: "unknown_assistant",
                           "There is no chat assistant \(assistant); promote one of \(registry.chatAssistants.joined(separator: ", ")).", param: "assistant")
        }
        let versions = entry.versions.keys.sorted().map(String.init).joined(separator: ", ")
        guard let version = body.version else {
            throw APIError(.badRequest, code: "missing_version", "Name the version to promote in \"version\" (\(assistant) has \(versions)).", param: "version")
        }
        guard entry.versions[version] != nil else {
            throw APIError(.badRequest, code: "unknown_version",
                           "\(assistant) has no version \(version) (it has \(versions)); write prompts/\(assistant)/\(version).md on every node first.",
                           param: "version")
        }
        let promotion = PromptPromotion(assistant: assistant, version: version, by: caller.userID, allowOffline: body.allowOffline ?? false)
        let files: [URL]
        do {
            files = try EvalBench.evalFiles(besidePrompts: registry.folder)
        } catch let error as EvalBenchError {
            throw APIError(.badRequest, code: "no_evals", "\(error.description.replacingOccurrences(of: "; pass --eval FILE", with: "")); a release must be measured: add golden questions (evals/README.md).")
        }
        guard await Self.running.claim(assistant) else {
            throw APIError(.conflict, code: "promotion_running", "A promotion of \(assistant) is running on this node; try again when it ends (GET /api/ops/prompts shows its record).")
        }
        let bench: EvalBench
        do {
            bench = try evalBench(folder: registry.folder)
        } catch {
            await Self.running.release(assistant)
            throw error
        }
        // Not the request's own task: an operator who closes the page does not cut a run short
        // half recorded; the assistant stays claimed until the run ends.
        let run = Task { [engine] () async throws -> PromptPromotion.Outcome in
            defer { Task { await Self.running.release(assistant) } }
            return try await promotion.run(files: files, bench: bench, registry: registry, releases: engine.chats)
        }
        let outcome: PromptPromotion.Outcome
        do {
            outcome = try await run.value
        } catch let error as PromotionError {
            throw APIError(.badRequest, code: "not_promotable", "\(error.description).")
        } catch let error as EvalBenchError {
            throw APIError(.badRequest, code: "not_promotable", "\(error.description).")
        }
        let record = outcome.record
        guard record.promoted else {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            var details = ["record": String(decoding: try encoder.encode(record), as: UTF8.self), "failed_gates": record.failedGates.joined(separator: "; ")]
            if let refusal = record.refusal { details["refusal"] = refusal }
            let why = record.refusal.map { _ in
                "\(assistant) v\(version) changes the instructions, and the gates would run with \(record.judgedBy ?? "a provider") that does not read them; "
                    + "run the service with a model (OPENAI_BASE_URL), or send \"allow_offline\": true to judge by retrieval alone (recorded)"
            } ?? "\(assistant) v\(version) misses \(record.failedGates.count) gate\(record.failedGates.count == 1 ? "" : "s"): \(record.failedGates.joined(separator: "; "))"
            throw APIError(.conflict, code: "promotion_refused",
                           "\(why). Production stays at v\(record.previous.map(String.init) ?? "none"); details.record is the attempt as recorded.",
                           details: details)
        }
        return record
    }

    /// The prompts folder as it is on disk now.
    private func currentRegistry() throws -> PromptRegistry {
        do {
            return try PromptRegistry.load(folder: engine.prompts.folder)
        } catch {
            throw APIError(.internalServerError, code: "prompts_unreadable", "The prompts folder cannot be read (\(error)); run griot prompts list on the node to see what is wrong.")
        }
    }

    /// The service's own provider, counters and safety stages answer the eval files (the
    /// service judges a release with what it serves), each on a fresh copy of the bundled
    /// corpus. Files of another database (wpa) are left out: the service's database holds
    /// users' stories, not an eval's; `griot prompts promote --db` runs those.
    private func evalBench(folder: URL) throws -> EvalBench {
        EvalBench(configuration: try configuration ?? GriotConfiguration.load(), embedder: engine.archive.embedder, makeEngine: { [engine] archive, _ in
            ChatEngine(archive: archive, chats: try Storage.inMemory().chats, prompts: try PromptRegistry.load(folder: folder),
                       provider: engine.provider, counters: engine.counters, safety: engine.safety, assistants: engine.assistants)
        })
    }

    /// The assistants whose promotion is running on this node: one at a time each.
    static let running = PromotionClaims()
}

extension PromptPromotion.Record: ResponseEncodable {}

/// Which assistants have a promotion running, so that two operators' promotions of the same
/// assistant do not both run their evals and race to move its label.
actor PromotionClaims {
    private var running: Set<String> = []

    func claim(_ assistant: String) -> Bool {
        running.insert(assistant).inserted
    }

    func release(_ assistant: String) {
        running.remove(assistant)
    }
}
