import Foundation
import GriotArchive
import GriotAuth
import GriotChat
import GriotEval
import GriotProviders
import GriotStore
import Hummingbird

/// For operators (and admins): recent turns with filters, one turn's detail, replays of a stored
/// turn or thread with another prompt version, model or index (`griot replay` over HTTP), and
/// prompt releases (`OpsRoutes+Prompts.swift`).
struct OpsRoutes: Sendable {
    let engine: ChatEngine
    /// The node's configuration (`griot serve --config` and the environment), which a
    /// promotion's evals run under; nil reads the environment alone.
    var configuration: GriotConfiguration? = nil

    func add(to router: RouterGroup<GriotRequestContext>) {
        router.get("turns", use: turns)
        router.get("turns/:id", use: turn)
        router.post("replay", use: replay)
        addPrompts(to: router)
    }

    struct TurnPage: ResponseEncodable {
        var turns: [TurnListing]
    }

    /// Recent turns, newest first: `assistant`, `flag` (a safety flag kind), `low_groundedness=true`,
    /// `status`, `since` and `until` (ISO 8601), `limit` (1–500, default 50).
    @Sendable func turns(_ request: Request, context: GriotRequestContext) async throws -> TurnPage {
        let query = QueryReader(request)
        var filter = TurnFilter(assistant: query.text("assistant"), flag: query.text("flag"), since: try query.date("since"), until: try query.date("until"))
        if let flag = filter.flag, SafetyFlag.Kind(rawValue: flag) == nil {
            throw APIError.badRequest("invalid_flag", "flag must be one of \(SafetyFlag.kindNames).")
        }
        if let value = query.text("low_groundedness") {
            guard let flag = Bool(value) else { throw APIError.badRequest("invalid_low_groundedness", "low_groundedness must be true or false.") }
            filter.lowGroundedness = flag
        }
        if let value = query.text("status") {
            guard let status = MessageStatus(rawValue: value) else {
                throw APIError.badRequest("invalid_status", "status must be one of \(MessageStatus.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            filter.status = status
        }
        filter.limit = try query.number("limit", default: 50, range: 1...500)
        let records = try await engine.chats.recentTurns(filter)
        return TurnPage(turns: OperatorView.listing(records.map(TurnListing.init), scrubber: engine.safety.scrubber))
    }

    /// One stored turn under the operators' rule (`OperatorView.turn`): question and answer
    /// masked, passages with their rank in each arm, ledger, events, verdicts, citations.
    @Sendable func turn(_ request: Request, context: GriotRequestContext) async throws -> TurnDetail {
        let id = try context.parameters.require("id")
        guard let record = try await engine.chats.turn(id: id) else {
            throw APIError.notFound("turn_not_found", "There is no stored turn \(id); GET /api/ops/turns lists recent turns with their ids.")
        }
        do {
            return try await OperatorView(engine: engine).turn(record)
        } catch is DecodingError {
            throw APIError(.unprocessableContent, code: "turn_unreadable", "The snapshot of turn \(id) cannot be read; it may predate snapshots. POST /api/ops/replay cannot replay it either.")
        }
    }

    struct ReplayBody: Decodable {
        var id: String?
        var promptVersion: String?
        var model: String?
        var provider: String?
        var index: String?
        var cassette: Bool?

        enum CodingKeys: String, CodingKey {
            case id, model, provider, index, cassette
            case promptVersion = "prompt_version"
        }
    }

    struct ReplayReply: ResponseEncodable {
        var results: [ReplayResult]
    }

    /// Replays a turn or a thread (`id`) and returns both snapshots and the diff per turn.
    @Sendable func replay(_ request: Request, context: GriotRequestContext) async throws -> ReplayReply {
        let body = try await request.decodeJSON(as: ReplayBody.self, context: context,
                                                shape: #"{"id": "<turn or thread id>", "prompt_version": "2", "index": "snapshot"}"#)
        guard let id = body.id, !id.isEmpty else { throw APIError.badRequest("missing_id", "Name the turn or thread to replay in \"id\".") }
        var options = ReplayOptions(promptVersion: body.promptVersion.flatMap { $0.isEmpty ? nil : $0 },
                                    model: body.model.flatMap { $0.isEmpty ? nil : $0 }, cassette: body.cassette ?? false)
        if let index = body.index {
            guard let parsed = ReplayOptions.Index(rawValue: index) else {
                throw APIError.badRequest("invalid_index", "index must be snapshot (the passages the turn retrieved) or current (search again).")
            }
            options.index = parsed
        }
        let provider: (any ChatProvider)?
        switch body.provider {
        case nil, "", "configured": provider = nil
        case "extractive": provider = ExtractiveResponder.scoring(with: engine.archive.embedder)
        default: throw APIError.badRequest("invalid_provider", "provider must be configured (the service's own) or extractive (the offline responder).")
        }
        do {
            // What the operator may read of it: OperatorView, which audits each private story shown.
            let results = try await TurnReplayer(engine: engine, provider: provider).replay(id: id, options: options)
            return await ReplayReply(results: try OperatorView(engine: engine).results(results))
        } catch let error as ReplayError {
            throw APIError(error.isNotFound ? .notFound : .unprocessableContent, code: error.isNotFound ? "not_found" : "not_replayable", error.description)
        }
    }
}

extension TurnDetail: ResponseEncodable {}
