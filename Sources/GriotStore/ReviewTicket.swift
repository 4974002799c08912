import Foundation
import GRDB

/// A flag that needs a person (issue 37, item 63): a crisis escalation, a blocked message, a
/// reply flagged for copyright review or as poorly grounded, or a user's report of a reply.
/// It is written in the same transaction as the verdict (or report) it comes from, with its
/// `ReviewDelivery` (the outbox row a delivery worker posts to the Trust & Safety tracker).
///
/// What a ticket holds is what operators may read: ids, the assistant, the stage's own words
/// and score (`summary`), and for a report the reason and the reporter's note, which passed the
/// same moderation and PII mask as any message. Never a message's text.
public struct ReviewTicket: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "reviewTicket"

    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable, DatabaseValueConvertible {
        /// The user's message was about self-harm: the crisis reply went out; a person should follow up.
        case crisis
        /// The input moderation blocked a message (a send or an edit).
        case blocked
        /// A reply copies a source passage almost word for word.
        case copyrightReview = "copyright_review"
        /// A reply the groundedness stage marked "AI may be inaccurate".
        case lowGroundedness = "low_groundedness"
        /// The asker reported a reply (`POST /api/messages/{id}/report`).
        case userReport = "user_report"

        /// The safety stage's verdict that opens a ticket of this kind, if any: (stage, decision).
        public static func opened(byStage stage: String, decision: String) -> Kind? {
            switch (stage, decision) {
            case ("crisis", "route"): .crisis
            case ("moderation", "block"): .blocked
            case ("copyright", "flag"): .copyrightReview
            case ("groundedness", "flag"): .lowGroundedness
            default: nil
            }
        }

        /// The kinds' names, for messages: "crisis, blocked, ...".
        public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

        /// How the tracker's summary line names the kind.
        public var title: String {
            switch self {
            case .crisis: "Crisis escalation"
            case .blocked: "Blocked message"
            case .copyrightReview: "Copyright review"
            case .lowGroundedness: "Low groundedness"
            case .userReport: "Reported reply"
            }
        }
    }

    public enum Status: String, Codable, Sendable, Hashable, CaseIterable, DatabaseValueConvertible {
        case open, acknowledged, resolved

        public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
    }

    /// Why a user reports a reply.
    public enum ReportReason: String, Codable, Sendable, Hashable, CaseIterable {
        case inaccurate, harmful, offensive, privacy, copyright, other

        public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
    }

    public var id: String
    public var kind: Kind
    public var status: Status
    public var assistant: String
    /// The owner of the thread the flag is about (whose data it is; an erasure removes the ticket).
    public var userID: String
    public var threadID: String
    public var turnID: String?
    /// The message flagged: the user's message (crisis, blocked) or the reply.
    public var messageID: String?
    /// The stage's reason in its own words ("answer 0.21 over 3 claims; …"), never user text.
    public var summary: String
    public var score: Double?
    /// A report's reason (`ReportReason`).
    public var reason: String?
    /// A report's note, as the moderation let it through and with personal details masked.
    public var note: String?
    public var createdAt: Date
    public var acknowledgedAt: Date?
    public var acknowledgedBy: String?
    public var resolvedAt: Date?
    public var resolvedBy: String?
    /// What the resolver wrote (optional, at most `noteLength` characters).
    public var resolution: String?
    /// One ticket per flag: `verdict:<turn>:<kind>`, `moderation:<message>:<time>`, `report:<message>:<reporter>`.
    public var dedupeKey: String

    public init(id: String = UUID().uuidString.lowercased(), kind: Kind, status: Status = .open, assistant: String, userID: String, threadID: String,
                turnID: String?, messageID: String?, summary: String, score: Double? = nil, reason: String? = nil, note: String? = nil,
                createdAt: Date, acknowledgedAt: Date? = nil, acknowledgedBy: String? = nil, resolvedAt: Date? = nil, resolvedBy: String? = nil,
                resolution: String? = nil, dedupeKey: String) {
        self.id = id
        self.kind = kind
        self.status = status
        self.assistant = assistant
        self.userID = userID
        self.threadID = threadID
        self.turnID = turnID
        self.messageID = messageID
        self.summary = summary
        self.score = score
        self.reason = reason
        self.note = note
        self.createdAt = createdAt
        self.acknowledgedAt = acknowledgedAt
        self.acknowledgedBy = acknowledgedBy
        self.resolvedAt = resolvedAt
        self.resolvedBy = resolvedBy
        self.resolution = resolution
        self.dedupeKey = dedupeKey
    }

    /// The longest report note or resolution, in characters.
    public static let noteLength = 1000

    /// The ticket a safety verdict opens, if it is one that needs a person.
    public static func opened(by verdict: SafetyVerdictRecord, assistant: String) -> ReviewTicket? {
        guard let kind = Kind.opened(byStage: verdict.stage, decision: verdict.decision) else { return nil }
        // A blocked edit is a new event on the same message: each block is its own ticket.
        let key = kind == .blocked
            ? "moderation:\(verdict.messageID ?? verdict.turnID):\(Int64((verdict.at.timeIntervalSince1970 * 1000).rounded()))"
            : "verdict:\(verdict.turnID):\(kind.rawValue)"
        return ReviewTicket(kind: kind, assistant: assistant, userID: verdict.userID, threadID: verdict.threadID, turnID: verdict.turnID,
                            messageID: verdict.messageID, summary: "\(verdict.stage): \(verdict.reason)", score: verdict.score,
                            createdAt: verdict.at, dedupeKey: key)
    }
}

/// The outbox row of a ticket: whether and when it reached the tracker (`GRIOT_REVIEW_WEBHOOK_URL`),
/// kept in the database so that a restart, or another node, carries on where the last left off.
/// A worker claims a row by a lease (`leaseOwner` until `leaseUntil`) so that two nodes never
/// post the same ticket at once; the ticket's id is the idempotency key of every attempt.
public struct ReviewDelivery: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "reviewOutbox"

    public enum State: String, Codable, Sendable, Hashable {
        /// Not tried yet.
        case pending
        /// Tried and failed; tried again at `nextAttemptAt`.
        case retrying
        case delivered
    }

    public var ticketID: String
    public var createdAt: Date
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastError: String?
    public var deliveredAt: Date?
    /// The tracker's key for the issue it made ("TS-12"), from its answer.
    public var remoteKey: String?
    public var leaseOwner: String?
    public var leaseUntil: Date?

    public init(ticketID: String, createdAt: Date, attempts: Int = 0, nextAttemptAt: Date, lastError: String? = nil, deliveredAt: Date? = nil,
                remoteKey: String? = nil, leaseOwner: String? = nil, leaseUntil: Date? = nil) {
        self.ticketID = ticketID
        self.createdAt = createdAt
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.deliveredAt = deliveredAt
        self.remoteKey = remoteKey
        self.leaseOwner = leaseOwner
        self.leaseUntil = leaseUntil
    }

    public var state: State {
        if deliveredAt != nil { return .delivered }
        return attempts == 0 ? .pending : .retrying
    }

    /// The longest error kept, in characters (a tracker's error page is not worth more).
    public static let errorLength = 500
}

/// A ticket with the state of its delivery.
public struct ReviewItem: Sendable, Hashable {
    public var ticket: ReviewTicket
    public var delivery: ReviewDelivery?

    public init(ticket: ReviewTicket, delivery: ReviewDelivery?) {
        self.ticket = ticket
        self.delivery = delivery
    }
}

/// How one delivery attempt ended.
public enum ReviewDeliveryOutcome: Sendable, Hashable {
    case delivered(remoteKey: String?)
    /// Failed: `error` in words (a status and the start of the answer), tried again at `retryAt`.
    case failed(error: String, retryAt: Date)
}

/// Which tickets to list, newest first: by status, kind, assistant, creation time (`since`
/// inclusive, `until` exclusive) and turn; a page of `limit` from `offset`.
public struct ReviewFilter: Sendable, Hashable {
    public var status: ReviewTicket.Status?
    public var kind: ReviewTicket.Kind?
    public var assistant: String?
    public var turnID: String?
    public var since: Date?
    public var until: Date?
    public var limit: Int
    public var offset: Int

    public init(status: ReviewTicket.Status? = nil, kind: ReviewTicket.Kind? = nil, assistant: String? = nil, turnID: String? = nil,
                since: Date? = nil, until: Date? = nil, limit: Int = 50, offset: Int = 0) {
        self.status = status
        self.kind = kind
        self.assistant = assistant
        self.turnID = turnID
        self.since = since
        self.until = until
        self.limit = limit
        self.offset = offset
    }
}

extension AuditAction {
    /// An operator acknowledged a review ticket (`details.ticket_id`, `details.kind`).
    public static let reviewAcknowledge: AuditAction = "review.acknowledge"
    /// An operator resolved a review ticket.
    public static let reviewResolve: AuditAction = "review.resolve"
    /// A user reported a reply (`details.ticket_id`, `details.reason`; never the note).
    public static let reviewReport: AuditAction = "review.report"
}

extension AuditEntry {
    /// The audit line of a step an operator takes on a ticket (acknowledge, resolve), the same on
    /// every backend: whose ticket, which thread and message, the ticket and its kind.
    public static func reviewStep(_ action: AuditAction, on ticket: ReviewTicket, by actorID: String, at: Date,
                                  context: AuditContext?) -> AuditEntry {
        AuditEntry(at: at, action: action, userID: ticket.userID, actorID: actorID, threadID: ticket.threadID,
                   messageID: ticket.messageID, ipHash: context?.ipHash,
                   details: AuditEntry.details(["ticket_id": .string(ticket.id), "kind": .string(ticket.kind.rawValue)]))
    }
}
