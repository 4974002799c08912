import Foundation

/// The review queue (issue 37, item 63): tickets for the flags that need a person, and their
/// outbox. Tickets are opened by the store itself, in the transaction that records the verdict
/// they come from (`SafetyLog.recordVerdicts`, see `ReviewTicket.opened(by:assistant:)`), or
/// the user's report; each with its `ReviewDelivery` row in that same transaction, so a ticket
/// never exists without its delivery, nor a delivery without its ticket.
///
/// ```swift
/// let open = try await chats.reviewItems(ReviewFilter(status: .open, kind: .crisis))
/// try await chats.acknowledgeReview(id: open[0].ticket.id, by: "u-ops", now: Date())
/// for item in try await chats.claimReviewDeliveries(owner: node, limit: 10, lease: 60, now: Date()) { … post item.ticket … }
/// ```
public protocol ReviewQueue: Sendable {
    /// The tickets matching `filter`, newest first, each with its delivery.
    func reviewItems(_ filter: ReviewFilter) async throws -> [ReviewItem]
    func reviewItem(id: String) async throws -> ReviewItem?
    /// Opens a `user_report` ticket on a reply for `reporterID` (the thread's owner; the caller
    /// checks), with its outbox row and a `review.report` audit entry. A second report of the
    /// same reply by the same user returns the first ticket, with `created` false.
    func reportReply(messageID: String, reporterID: String, reason: ReviewTicket.ReportReason, note: String?, now: Date) async throws
        -> (item: ReviewItem, created: Bool)
    /// open → acknowledged, with who and when, and a `review.acknowledge` audit entry. Throws
    /// `ChatStoreError.notFound` for no such ticket, `.conflict` when it is not open.
    func acknowledgeReview(id: String, by actorID: String, now: Date) async throws -> ReviewItem
    /// open or acknowledged → resolved, with who, when and an optional resolution, and a
    /// `review.resolve` audit entry. `.conflict` when it is resolved already.
    func resolveReview(id: String, by actorID: String, resolution: String?, now: Date) async throws -> ReviewItem
    /// Leases up to `limit` undelivered tickets that are due (their next attempt has come and no
    /// lease in force) to `owner` for `lease` seconds, oldest first. Nodes sharing a database
    /// never get the same ticket while a lease is in force.
    func claimReviewDeliveries(owner: String, limit: Int, lease: TimeInterval, now: Date) async throws -> [ReviewItem]
    /// Records an attempt's outcome and ends the lease; false (nothing written) when `owner` no
    /// longer holds the lease on it.
    @discardableResult
    func recordReviewDelivery(ticketID: String, owner: String, outcome: ReviewDeliveryOutcome, now: Date) async throws -> Bool
}
