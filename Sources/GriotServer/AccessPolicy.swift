import Foundation
import GriotAuth
import GriotStore
import Hummingbird

/// Who may do what, route by route, and what each route costs: the one table of the service's
/// permissions and of its cost classes (`CostClass`), applied by `AccessMiddleware` before any
/// handler runs. Handlers decide nothing about access; they take the thread or message this
/// policy admitted from `context.grant`.
///
/// Every route the router serves has a row here (a route without one is refused with 500, and
/// `RoleMatrixTests` fails for it); the statuses each role gets are written in `openapi.yaml`
/// (`x-access`) and in the README's table, and the test checks all three agree.
///
/// ```swift
/// let grant = try await AccessPolicy(chats: chats).admit("PATCH /api/coach/messages/{id}", caller: caller, request: &request, context: context)
/// ```
struct AccessPolicy: Sendable {
    let chats: any ChatStore

    static let coach = "coach"
    static let griot = "griot"

    /// One row of the table: who may call a route, and what it costs (`RouteLimits` says how
    /// many of each cost a caller may make).
    struct Row: Sendable {
        let rule: AccessRule
        let cost: CostClass

        init(_ rule: AccessRule, _ cost: CostClass) {
            self.rule = rule
            self.cost = cost
        }
    }

    /// "METHOD /path" (the router's form, `{id}` for a parameter) → who may call it, and its cost:
    /// the service's own rows and every assistant's (`AssistantRoutes.accessRows`), assembled once.
    static let rules: [String: Row] = assembled(core: coreRows, assistants: GriotService.assistantRoutes)

    /// One table of `core` and each assistant's rows; a route with two rows is a programming error.
    static func assembled(core: [String: Row], assistants: [any AssistantRoutes.Type]) -> [String: Row] {
        var rules = core
        for routes in assistants {
            for (route, row) in routes.accessRows {
                precondition(rules[route] == nil, "\(route) has two rows in AccessPolicy.rules (one from \(routes))")
                rules[route] = row
            }
        }
        return rules
    }

    /// The rows of the routes no assistant owns: probes, stories, users, operators, keys, `/v1`.
    static let coreRows: [String: Row] = [
        "GET /healthz": .init(.anyone, .probe),
        "GET /readyz": .init(.anyone, .probe),
        "GET /metrics": .init(.anyone, .probe),
        "GET /openapi.yaml": .init(.anyone, .probe),

        "POST /api/stories": .init(.roles([.admin], "Only an admin (or a service token with the admin role) may add stories."), .heavy),
        "DELETE /api/stories/{id}": .init(.roles([.admin], "Only an admin may delete stories."), .heavy),
        "GET /api/stories/search": .init(.signedIn, .search),
        "GET /api/stories/near": .init(.signedIn, .search),

        "DELETE /api/users/{id}": .init(.selfOrAdmin, .heavy),
        "GET /api/audit": .init(.roles([.admin], "Only admins may read the audit log."), .heavy),
        "GET /api/messages/{id}/retained": .init(.roles([.admin], "Only admins may read the texts kept for moderation review."), .heavy),
        "GET /api/ops/turns": .init(.roles([.operator, .admin], "Only operators and admins may list and replay turns."), .heavy),
        "POST /api/ops/replay": .init(.roles([.operator, .admin], "Only operators and admins may list and replay turns."), .heavy),
        // The review queue (issue 37, item 63): tickets opened by flags that need a person and by
        // users' reports, for operators and admins; each change is audited.
        "GET /api/ops/reviews": .init(.roles([.operator, .admin], "Only operators and admins may read the review queue."), .read),
        "GET /api/ops/reviews/{id}": .init(.roles([.operator, .admin], "Only operators and admins may read the review queue."), .read),
        "POST /api/ops/reviews/{id}/acknowledge": .init(.roles([.operator, .admin], "Only operators and admins may acknowledge review tickets."), .read),
        "POST /api/ops/reviews/{id}/resolve": .init(.roles([.operator, .admin], "Only operators and admins may resolve review tickets."), .read),
        // The operators' console (issue 37): its JSON routes, under the same operators' rule.
        // The dashboard reads a per-minute rollup (a few hundred rows at most), and its stream
        // stays open while the page is, so neither is capped like a heavy request would be.
        "GET /api/ops/dashboard": .init(.roles([.operator, .admin], "Only operators and admins may read the dashboard."), .read),
        "GET /api/ops/dashboard/stream": .init(.roles([.operator, .admin], "Only operators and admins may read the dashboard."), .read),
        "GET /api/ops/turns/{id}": .init(.roles([.operator, .admin], "Only operators and admins may read stored turns."), .read),
        "GET /api/ops/prompts": .init(.roles([.operator, .admin], "Only operators and admins may read prompt releases."), .read),
        // Operators as well as admins may promote: releasing a prompt is operations work (the
        // shell's `griot prompts promote` asks for no role either), what protects production is
        // the eval gate, which no role can skip, and each attempt is logged with who asked. It
        // runs an eval suite, so it is heavy.
        "POST /api/ops/prompts/{assistant}/promote": .init(.roles([.operator, .admin], "Only operators and admins may promote a prompt version."), .heavy),
        // One route for every assistant's replies: the asker reports a reply of their own thread.
        "POST /api/messages/{id}/report": .init(.messageInOwnThread, .heavy),

        "POST /api/support-grants": .init(.signedIn, .read),
        "GET /api/support-grants": .init(.signedIn, .read),
        "DELETE /api/support-grants/{id}": .init(.supportGrantOwner, .read),

        // API keys for services (issue 36): made, listed and revoked by admins; a key's secret
        // is shown once, when it is made.
        "POST /api/admin/keys": .init(.roles([.admin], "Only admins may make API keys."), .heavy),
        "GET /api/admin/keys": .init(.roles([.admin], "Only admins may list API keys."), .read),
        "DELETE /api/admin/keys/{id}": .init(.roles([.admin], "Only admins may revoke API keys."), .heavy),

        // OpenAI's wire format (issue 36): the same turn pipeline, retrieval under the caller's
        // access, and the same moderation, for any OpenAI client.
        "GET /v1/models": .init(.signedIn, .read),
        "POST /v1/chat/completions": .init(.completionCaller, .chat),
        "POST /v1/moderations": .init(.signedIn, .search),
    ]

    /// Decides whether `caller` may call `route`, and returns what it admitted them to. Throws
    /// the 400, 403 or 404 the caller gets otherwise. `request` may have its body collected
    /// (a rule that reads `course_id`); the handler reads it again from the same request.
    func admit(_ rule: AccessRule, caller: Caller?, request: inout Request, context: GriotRequestContext) async throws -> AccessGrant {
        switch rule {
        case .anyone:
            return AccessGrant()
        case .signedIn:
            _ = try require(caller)
            return AccessGrant()
        case .roles(let roles, let refusal):
            guard roles.contains(try require(caller).role) else { throw forbidden(refusal) }
            return AccessGrant()
        case .threadOwner(let assistant, let field, let missing):
            let caller = try require(caller)
            let id = try ClientIdentifier.check(try context.parameters.require("id"), field: field)
            guard let thread = try await chats.thread(id: id), thread.userID == caller.userID, thread.assistant == assistant else {
                throw APIError.notFound(missing, assistant == Self.coach
                    ? "There is no coaching thread \(id) for you; POST /api/coach/threads with your course_id."
                    : "There is no session \(id) for you.")
            }
            return AccessGrant(thread: thread)
        case .messageAuthor:
            let caller = try require(caller)
            let (message, thread) = try await coachingMessage(context)
            guard let message, let thread, thread.userID == caller.userID else {
                if message != nil, caller.role.mayAdminister {
                    throw forbidden("Only a message's author may edit its text. Admins may delete a message (DELETE) or export the thread, never rewrite what someone wrote.")
                }
                throw messageNotFound(context)
            }
            guard message.role == .user else {
                throw forbidden("Only your own messages can be edited, not the coach's replies.")
            }
            return AccessGrant(thread: thread, message: message)
        case .messageOwnerOrAdmin:
            let caller = try require(caller)
            let (message, thread) = try await coachingMessage(context)
            guard let message, let thread, thread.userID == caller.userID || caller.role.mayAdminister else { throw messageNotFound(context) }
            return AccessGrant(thread: thread, message: message)
        case .courseMember:
            let caller = try require(caller)
            // The course is in the body; a body without one is the handler's 400 to give.
            let body: ByteBuffer
            do {
                body = try await request.collectBody(upTo: context.maxUploadSize)
            } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
                throw APIError.bodyTooLarge(limit: context.maxUploadSize)
            }
            if let courseID = (try? JSONDecoder().decode(CoachRoutes.ThreadBody.self, from: Data(buffer: body)))?.courseID, !courseID.isEmpty {
                try checkCourse(courseID, for: caller)
            }
            return AccessGrant()
        case .messageInOwnThread:
            let caller = try require(caller)
            let id = try ClientIdentifier.check(try context.parameters.require("id"), field: "message_id")
            guard let message = try await chats.message(id: id), let thread = try await chats.thread(id: message.threadID),
                  thread.userID == caller.userID else {
                throw APIError.notFound("message_not_found", "There is no message \(id) in a thread of yours; it may have been deleted. Reload the thread's messages.")
            }
            return AccessGrant(thread: thread, message: message)
        case .completionCaller:
            let caller = try require(caller)
            let body: ByteBuffer
            do {
                body = try await request.collectBody(upTo: context.maxUploadSize)
            } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
                throw APIError.bodyTooLarge(limit: context.maxUploadSize)
            }
            // A body that is not a completion request is the handler's 400 to give.
            guard let target = try? JSONDecoder().decode(V1Routes.Target.self, from: Data(buffer: body)) else { return AccessGrant() }
            if let courseID = target.courseID, !courseID.isEmpty { try checkCourse(courseID, for: caller) }
            guard let threadID = target.threadID, !threadID.isEmpty else { return AccessGrant() }
            let id = try ClientIdentifier.check(threadID, field: "thread_id")
            guard let thread = try await chats.thread(id: id), thread.userID == caller.userID, thread.assistant == target.assistant else {
                throw APIError(.notFound, code: "thread_not_found",
                               "There is no \(target.assistant ?? "") thread \(id) for you; leave thread_id out to start one (the reply's griot.thread_id names it).",
                               param: "thread_id")
            }
            return AccessGrant(thread: thread)
        case .courseCoach:
            let caller = try require(caller)
            guard caller.role == .coach || caller.role == .admin else {
                throw forbidden("Only the course's coach or an admin may set its instructions.")
            }
            try checkCourse(try context.parameters.require("id"), for: caller)
            return AccessGrant()
        case .threadCourseCoach:
            let caller = try require(caller)
            guard caller.role.mayExportConversations else { throw forbidden("Only coaches and admins may export conversations.") }
            let id = try ClientIdentifier.check(try context.parameters.require("id"), field: "thread_id")
            // A coach sees the threads of the courses their token names; a token naming none, none.
            guard let thread = try await chats.thread(id: id), thread.assistant == Self.coach,
                  caller.role.mayAdminister || thread.courseID.map({ Self.names(caller, course: $0) }) == true
            else {
                throw APIError.notFound("thread_not_found", "There is no coaching thread \(id) in your courses.")
            }
            return AccessGrant(thread: thread)
        case .selfOrAdmin:
            let caller = try require(caller)
            guard caller.userID == (try context.parameters.require("id")) || caller.role.mayAdminister else {
                throw forbidden("You may erase only your own data; an admin can erase another user's.")
            }
            return AccessGrant()
        case .supportGrantOwner:
            let caller = try require(caller)
            let id = try ClientIdentifier.check(try context.parameters.require("id"), field: "grant_id")
            guard let grant = try await chats.supportGrant(id: id), grant.ownerUserID == caller.userID else {
                throw APIError.notFound("grant_not_found", "You have no support grant \(id); GET /api/support-grants lists yours.")
            }
            return AccessGrant(supportGrant: grant)
        }
    }

    private func require(_ caller: Caller?) throws -> Caller {
        guard let caller else { throw APIError(.unauthorized, code: "unauthenticated", "Send Authorization: Bearer <token>.") }
        return caller
    }

    private func forbidden(_ message: String) -> APIError {
        APIError(.forbidden, code: "forbidden", message)
    }

    /// A caller may use a course named in their token's `course_ids`; an admin any course. A
    /// token without the claim names no course (fail closed): a missing claim must never read
    /// as "every course", or a token minted without it would coach all of them.
    private func checkCourse(_ courseID: String, for caller: Caller) throws {
        guard caller.role == .admin || Self.names(caller, course: courseID) else {
            throw forbidden(caller.courseIDs == nil
                ? "Your token names no course (no course_ids claim); ask for a token that includes course \(courseID)."
                : "Your token does not include course \(courseID).")
        }
    }

    /// Whether the token's `course_ids` names `courseID` (a missing claim names none).
    static func names(_ caller: Caller, course courseID: String) -> Bool {
        caller.courseIDs?.contains(courseID) ?? false
    }

    /// The live message `{id}` and its thread, when it is in a coaching thread.
    private func coachingMessage(_ context: GriotRequestContext) async throws -> (MessageRecord?, ThreadRecord?) {
        let id = try context.parameters.require("id")
        guard let message = try await chats.message(id: id), let thread = try await chats.thread(id: message.threadID), thread.assistant == Self.coach else {
            return (nil, nil)
        }
        return (message, thread)
    }

    private func messageNotFound(_ context: GriotRequestContext) -> APIError {
        let id = context.parameters.get("id") ?? ""
        return APIError.notFound("message_not_found", "There is no message \(id) of yours; it may have been deleted. Reload the thread's messages.")
    }
}
