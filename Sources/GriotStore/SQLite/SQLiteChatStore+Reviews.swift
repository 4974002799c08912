import Foundation
import GRDB

/// The review queue (`ReviewQueue`): tickets and their outbox rows in the same file as the
/// verdicts they come from. One file has one writer at a time, so a claim is a plain update.
extension SQLiteChatStore {
    /// Opens the ticket and its outbox row, unless a ticket with its `dedupeKey` exists (then
    /// returns that one and false). Runs inside the caller's transaction.
    func openTicket(_ ticket: ReviewTicket, _ db: Database) throws -> (ReviewTicket, created: Bool) {
        if let existing = try ReviewTicket.filter(Column("dedupeKey") == ticket.dedupeKey).fetchOne(db) { return (try existing.opened(cipher, db), false) }
        try ticket.sealed(cipher, db).insert(db)
        try ReviewDelivery(ticketID: ticket.id, createdAt: ticket.createdAt, nextAttemptAt: ticket.createdAt).insert(db)
        return (ticket, true)
    }

    /// The tickets the verdicts open (see `ReviewTicket.opened(by:assistant:)`), in the verdicts' transaction.
    func openTickets(for verdicts: [SafetyVerdictRecord], _ db: Database) throws {
        var assistants: [String: String] = [:]
        for verdict in verdicts where ReviewTicket.Kind.opened(byStage: verdict.stage, decision: verdict.decision) != nil {
            if assistants[verdict.threadID] == nil {
                assistants[verdict.threadID] = try String.fetchOne(db, sql: "SELECT assistant FROM thread WHERE id = ?", arguments: [verdict.threadID]) ?? ""
            }
            if let ticket = ReviewTicket.opened(by: verdict, assistant: assistants[verdict.threadID] ?? "") { _ = try self.openTicket(ticket, db) }
        }
    }

    public func reviewItems(_ filter: ReviewFilter) async throws -> [ReviewItem] {
        guard filter.limit > 0 else { return [] }
        return try await writer.read { db in
            var request = ReviewTicket.all()
            if let status = filter.status { request = request.filter(Column("status") == status.rawValue) }
            if let kind = filter.kind { request = request.filter(Column("kind") == kind.rawValue) }
            if let assistant = filter.assistant { request = request.filter(Column("assistant") == assistant) }
            if let turnID = filter.turnID { request = request.filter(Column("turnID") == turnID) }
            if let since = filter.since { request = request.filter(Column("createdAt") >= since) }
            if let until = filter.until { request = request.filter(Column("createdAt") < until) }
            let tickets = try request.order(Column("createdAt").desc, Column("id").desc)
                .limit(min(filter.limit, 500), offset: max(0, filter.offset)).fetchAll(db)
            return try tickets.map { ReviewItem(ticket: try $0.opened(cipher, db), delivery: try ReviewDelivery.fetchOne(db, key: $0.id)) }
        }
    }

    public func reviewItem(id: String) async throws -> ReviewItem? {
        try await writer.read { db in try self.item(id, db) }
    }

    func item(_ id: String, _ db: Database) throws -> ReviewItem? {
        guard let ticket = try ReviewTicket.fetchOne(db, key: id)?.opened(cipher, db) else { return nil }
        return ReviewItem(ticket: ticket, delivery: try ReviewDelivery.fetchOne(db, key: id))
    }

    public func reportReply(messageID: String, reporterID: String, reason: ReviewTicket.ReportReason, note: String?, now: Date) async throws
        -> (item: ReviewItem, created: Bool) {
        let context = AuditContext.current
        return try await writer.commit { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT message.threadID, message.turnID, message.role, thread.userID, thread.assistant
                FROM message JOIN thread ON thread.id = message.threadID
                WHERE message.id = ? AND message.deletedAt IS NULL AND thread.deletedAt IS NULL
                """, arguments: [messageID]) else { throw ChatStoreError.messageNotFound(messageID) }
            let role: String = row["role"]
            guard role == MessageRecord.Role.assistant.rawValue else {
                throw ChatStoreError(.invalid, "Message \(messageID) is your own message, not a reply; report the assistant's reply instead.")
            }
            let ticket = ReviewTicket(kind: .userReport, assistant: row["assistant"], userID: row["userID"], threadID: row["threadID"],
                                      turnID: row["turnID"], messageID: messageID, summary: "reported by the asker: \(reason.rawValue)",
                                      reason: reason.rawValue, note: note, createdAt: now, dedupeKey: "report:\(messageID):\(reporterID)")
            let (opened, created) = try self.openTicket(ticket, db)
            if created {
                var entry = AuditEntry(at: now, action: .reviewReport, userID: opened.userID, actorID: reporterID, threadID: opened.threadID,
                                       messageID: messageID, ipHash: context?.ipHash,
                                       details: AuditEntry.details(["ticket_id": .string(opened.id), "reason": .string(reason.rawValue)]))
                try entry.insert(sealedBy: self.cipher, db)
            }
            return (try self.item(opened.id, db) ?? ReviewItem(ticket: opened, delivery: nil), created)
        }
    }

    public func acknowledgeReview(id: String, by actorID: String, now: Date) async throws -> ReviewItem {
        let context = AuditContext.current
        return try await writer.commit { db in
            guard var ticket = try ReviewTicket.fetchOne(db, key: id)?.opened(self.cipher, db) else { throw ReviewTicket.notFound(id) }
            guard ticket.status == .open else { throw ReviewTicket.notOpen(ticket) }
            ticket.status = .acknowledged
            ticket.acknowledgedAt = now
            ticket.acknowledgedBy = actorID
            try ticket.sealed(self.cipher, db).update(db)
            var entry = AuditEntry.reviewStep(.reviewAcknowledge, on: ticket, by: actorID, at: now, context: context)
            try entry.insert(sealedBy: self.cipher, db)
            return try self.item(id, db) ?? ReviewItem(ticket: ticket, delivery: nil)
        }
    }

    public func resolveReview(id: String, by actorID: String, resolution: String?, now: Date) async throws -> ReviewItem {
        let context = AuditContext.current
        return try await writer.commit { db in
            guard var ticket = try ReviewTicket.fetchOne(db, key: id)?.opened(self.cipher, db) else { throw ReviewTicket.notFound(id) }
            guard ticket.status != .resolved else { throw ReviewTicket.alreadyResolved(ticket) }
            ticket.status = .resolved
            ticket.resolvedAt = now
            ticket.resolvedBy = actorID
            ticket.resolution = resolution
            try ticket.sealed(self.cipher, db).update(db)
            var entry = AuditEntry.reviewStep(.reviewResolve, on: ticket, by: actorID, at: now, context: context)
            try entry.insert(sealedBy: self.cipher, db)
            return try self.item(id, db) ?? ReviewItem(ticket: ticket, delivery: nil)
        }
    }

    public func claimReviewDeliveries(owner: String, limit: Int, lease: TimeInterval, now: Date) async throws -> [ReviewItem] {
        guard limit > 0 else { return [] }
        return try await writer.commit { db in
            let due = try String.fetchAll(db, sql: """
                SELECT ticketID FROM reviewOutbox
                WHERE deliveredAt IS NULL AND nextAttemptAt <= ?1 AND (leaseUntil IS NULL OR leaseUntil <= ?1)
                ORDER BY nextAttemptAt, ticketID LIMIT ?2
                """, arguments: [now, limit])
            var items: [ReviewItem] = []
            for id in due {
                try db.execute(sql: "UPDATE reviewOutbox SET leaseOwner = ?, leaseUntil = ? WHERE ticketID = ?",
                               arguments: [owner, now.addingTimeInterval(lease), id])
                if let item = try self.item(id, db) { items.append(item) }
            }
            return items
        }
    }

    @discardableResult
    public func recordReviewDelivery(ticketID: String, owner: String, outcome: ReviewDeliveryOutcome, now: Date) async throws -> Bool {
        try await writer.commit { db in
            switch outcome {
            case .delivered(let remoteKey):
                try db.execute(sql: """
                    UPDATE reviewOutbox SET attempts = attempts + 1, deliveredAt = ?, remoteKey = ?, lastError = NULL, leaseOwner = NULL, leaseUntil = NULL
                    WHERE ticketID = ? AND leaseOwner = ? AND deliveredAt IS NULL
                    """, arguments: [now, remoteKey, ticketID, owner])
            case .failed(let error, let retryAt):
                try db.execute(sql: """
                    UPDATE reviewOutbox SET attempts = attempts + 1, lastError = ?, nextAttemptAt = ?, leaseOwner = NULL, leaseUntil = NULL
                    WHERE ticketID = ? AND leaseOwner = ? AND deliveredAt IS NULL
                    """, arguments: [String(error.prefix(ReviewDelivery.errorLength)), retryAt, ticketID, owner])
            }
            return db.changesCount > 0
        }
    }
}

extension ReviewTicket {
    public static func notFound(_ id: String) -> ChatStoreError {
        ChatStoreError(.notFound, "There is no review ticket \(id); GET /api/ops/reviews lists them.")
    }

    public static func notOpen(_ ticket: ReviewTicket) -> ChatStoreError {
        ChatStoreError(.conflict, "Review ticket \(ticket.id) is \(ticket.status.rawValue) (by \(ticket.acknowledgedBy ?? ticket.resolvedBy ?? "someone")); only an open ticket can be acknowledged.")
    }

    public static func alreadyResolved(_ ticket: ReviewTicket) -> ChatStoreError {
        ChatStoreError(.conflict, "Review ticket \(ticket.id) was resolved already by \(ticket.resolvedBy ?? "someone"); nothing to do.")
    }
}
