import GriotAuth

/// Who may call one route: a row of `AccessPolicy.rules`.
///
/// Two answers for "no": a route that needs a role the caller lacks is 403 with a message that
/// says who may; a thread, session or message of someone else is 404, as if it did not exist,
/// so ids cannot be probed. The one exception is an admin editing someone's message: admins may
/// see and delete it, so hiding it would be a lie, and the 403 says that admins never rewrite.
///
/// ```swift
/// "PATCH /api/coach/messages/{id}": .messageAuthor,
/// "GET /api/audit": .roles([.admin], "Only admins may read the audit log."),
/// ```
enum AccessRule: Sendable {
    /// No token needed: liveness, readiness, metrics, the API document.
    case anyone
    /// Any valid token.
    case signedIn
    /// A valid token with one of these roles; anyone else gets 403 with `refusal`.
    case roles(Set<CallerRole>, String)
    /// The `{id}` is a thread of `assistant` that the caller owns (a Griot session, a coaching
    /// thread). `field` names the id in errors; `missing` is the 404 code.
    case threadOwner(assistant: String, field: String, missing: String)
    /// The `{id}` is a message the caller wrote (a user message in the caller's own coaching
    /// thread). Only its author edits a message's text: not the coach, not an admin.
    case messageAuthor
    /// The `{id}` is a message in the caller's own coaching thread, or the caller is an admin
    /// (admins delete and export, they never rewrite).
    case messageOwnerOrAdmin
    /// The body's `course_id` is one of the courses the caller's token names (`course_ids`; a
    /// token without the claim names none); admins any course.
    case courseMember
    /// The `{id}` course is one the caller coaches (a coach whose token's `course_ids` names it),
    /// or the caller is an admin.
    case courseCoach
    /// The `{id}` thread is a coaching thread of a course the caller coaches (named in the token's
    /// `course_ids`), or the caller is an admin. Clients and operators get 403; a coach of another
    /// course, or a coach whose token names no course, 404.
    case threadCourseCoach
    /// The `{id}` is the caller's own user id, or the caller is an admin.
    case selfOrAdmin
    /// The `{id}` is a support grant the caller gave (as a story owner); anyone else's is 404.
    case supportGrantOwner
    /// The `{id}` is a message in a thread the caller owns, of any assistant (a Griot session, a
    /// coaching thread, an OpenAI client's thread): the asker reporting a reply. Anyone else's is 404.
    case messageInOwnThread
    /// An OpenAI chat completion (`/v1/chat/completions`): the body's `thread_id`, when given,
    /// is a thread the caller owns of the assistant its `model` names (404 otherwise), and its
    /// `course_id`, when given, is one of the caller's courses (403 otherwise), as
    /// `threadOwner` and `courseMember` rule for Griot's own routes.
    case completionCaller

    /// Whether the route needs a bearer token at all.
    var needsToken: Bool {
        if case .anyone = self { return false }
        return true
    }
}
