import Foundation
import GriotStore
import PostgresNIO

/// The review queue (`ReviewQueue`) on a database several nodes share: the same tickets and
/// outbox as `SQLiteChatStore+Reviews`. A ticket's status changes under its row's lock, and the
/// delivery workers of all nodes claim due rows with `FOR UPDATE SKIP LOCKED` and a lease, so
/// no two nodes post one ticket at the same time.
extension PostgresChatStore {
    /// Opens the ticket and its outbox row unless one with its `dedupeKey` exists (then returns
    /// that one and false), inside the caller's transaction.
    func openTicket(_ ticket: ReviewTicket, on connection: PostgresConnection) async throws -> (ReviewTicket, created: Bool) {
        let at = ticket.createdAt.millisecondRounded
        let scope = KeyScope.user(ticket.userID)
        let summary = try await keys.seal(ticket.summary, .reviewSummary, row: ticket.id, scope: scope)
        let note = try await keys.seal(ticket.note, .reviewNote, row: ticket.id, scope: scope)
        let inserted = try await Self.rows("""
            INSERT INTO reviewticket (id, kind, status, assistant, userid, threadid, turnid, messageid, summary, score, reason, note, createdat, dedupekey)
            VALUES (\(ticket.id), \(ticket.kind.rawValue), \(ticket.status.rawValue), \(ticket.assistant), \(ticket.userID), \(ticket.threadID),
                    \(ticket.turnID), \(ticket.messageID), \(summary), \(ticket.score), \(ticket.reason), \(note), \(at), \(ticket.dedupeKey))
            ON CONFLICT (dedupekey) DO NOTHING RETURNING id
            """, on: connection)
        guard !inserted.isEmpty else {
            guard let existing = try await Self.rows("SELECT * FROM reviewticket WHERE dedupekey = \(ticket.dedupeKey)", on: connection).first else {
                throw PostgresDatabase.Failure("review ticket \(ticket.dedupeKey) was neither inserted nor found; try again")
            }
            return (try await opened(ReviewTicket(existing)), false)
        }
        try await Self.rows("INSERT INTO reviewoutbox (ticketid, createdat, nextattemptat) VALUES (\(ticket.id), \(at), \(at))", on: connection)
        var stored = ticket
        stored.createdAt = at
        return (stored, true)
    }

    /// The tickets the verdicts open (see `ReviewTicket.opened(by:assistant:)`), in the verdicts' transaction.
    func openTickets(for verdicts: [SafetyVerdictRecord], on connection: PostgresConnection) async throws {
        var assistants: [String: String] = [:]
        for verdict in verdicts where ReviewTicket.Kind.opened(byStage: verdict.stage, decision: verdict.decision) != nil {
            if assistants[verdict.threadID] == nil {
                assistants[verdict.threadID] = try Self.scalar(String.self, await Self.rows("SELECT assistant FROM thread WHERE id = \(verdict.threadID)",
                                                                                           on: connection)) ?? ""
            }
            var stamped = verdict
            stamped.at = verdict.at.millisecondRounded
            if let ticket = ReviewTicket.opened(by: stamped, assistant: assistants[verdict.threadID] ?? "") {
                _ = try await openTicket(ticket, on: connection)
            }
        }
    }

    public func reviewItems(_ filter: ReviewFilter) async throws -> [ReviewItem] {
        guard filter.limit > 0 else { return [] }
        let since = filter.since.map(\.millisecondRounded)
        let until = filter.until.map(\.millisecondRounded)
        return try await opened(rows("""
            SELECT reviewticket.*, reviewoutbox.ticketid AS outbox_ticketid, reviewoutbox.createdat AS outbox_createdat, reviewoutbox.attempts,
                   reviewoutbox.nextattemptat, reviewoutbox.lasterror, reviewoutbox.deliveredat, reviewoutbox.remotekey, reviewoutbox.leaseowner,
                   reviewoutbox.leaseuntil
            FROM reviewticket LEFT JOIN reviewoutbox ON reviewoutbox.ticketid = reviewticket.id
            WHERE (\(filter.status?.rawValue)::text IS NULL OR status = \(filter.status?.rawValue))
              AND (\(filter.kind?.rawValue)::text IS NULL OR kind = \(filter.kind?.rawValue))
              AND (\(filter.assistant)::text IS NULL OR assistant = \(filter.assistant))
              AND (\(filter.turnID)::text IS NULL OR turnid = \(filter.turnID))
              AND (\(since)::timestamptz IS NULL OR reviewticket.createdat >= \(since))
              AND (\(until)::timestamptz IS NULL OR reviewticket.createdat < \(until))
            ORDER BY reviewticket.createdat DESC, reviewticket.id COLLATE "C" DESC
            LIMIT \(min(filter.limit, 500)) OFFSET \(max(0, filter.offset))
            """).map { try ReviewItem(joined: $0) }, opened)
    }

    public func reviewItem(id: String) async throws -> ReviewItem? {
        try await item(id, on: nil)
    }

    /// A ticket with its delivery, in the caller's transaction when it names one.
    func item(_ id: String, on connection: PostgresConnection?) async throws -> ReviewItem? {
        guard let ticket = try await run("SELECT * FROM reviewticket WHERE id = \(id)", on: connection).first else { return nil }
        let delivery = try await run("SELECT * FROM reviewoutbox WHERE ticketid = \(id)", on: connection).first
        return ReviewItem(ticket: try await opened(ReviewTicket(ticket)), delivery: try delivery.map { try ReviewDelivery($0) })
    }

    public func reportReply(messageID: String, reporterID: String, reason: ReviewTicket.ReportReason, note: String?, now: Date) async throws
        -> (item: ReviewItem, created: Bool) {
        let context = AuditContext.current
        let at = now.millisecondRounded
        try await prepareKeys(ofMessages: [messageID])
        return try await transaction { connection in
            guard let found = try await Self.rows("""
                SELECT message.threadid, message.turnid, message.role, thread.userid, thread.assistant
                FROM message JOIN thread ON thread.id = message.threadid
                WHERE message.id = \(messageID) AND message.deletedat IS NULL AND thread.deletedat IS NULL
                """, on: connection).first else { throw ChatStoreError.messageNotFound(messageID) }
            let row = RowColumns(found)
            guard try (row["role"] as String) == MessageRecord.Role.assistant.rawValue else {
                throw ChatStoreError(.invalid, "Message \(messageID) is your own message, not a reply; report the assistant's reply instead.")
            }
            let report = try ReviewTicket(kind: .userReport, assistant: row["assistant"], userID: row["userid"], threadID: row["threadid"],
                                          turnID: row["turnid"], messageID: messageID, summary: "reported by the asker: \(reason.rawValue)",
                                          reason: reason.rawValue, note: note, createdAt: at, dedupeKey: "report:\(messageID):\(reporterID)")
            let (ticket, created) = try await openTicket(report, on: connection)
            if created {
                try await insert(AuditEntry(at: at, action: .reviewReport, userID: ticket.userID, actorID: reporterID, threadID: ticket.threadID,
                                                 messageID: messageID, ipHash: context?.ipHash,
                                                 details: AuditEntry.details(["ticket_id": .string(ticket.id), "reason": .string(reason.rawValue)])),
                                      on: connection)
            }
            return (try await item(ticket.id, on: connection) ?? ReviewItem(ticket: ticket, delivery: nil), created)
        }
    }

    public func acknowledgeReview(id: String, by actorID: String, now: Date) async throws -> ReviewItem {
        let context = AuditContext.current
        let at = now.millisecondRounded
        return try await transaction { connection in
            guard let row = try await Self.rows("SELECT * FROM reviewticket WHERE id = \(id) FOR UPDATE", on: connection).first else {
                throw ReviewTicket.notFound(id)
            }
            let ticket = try await opened(ReviewTicket(row))
            guard ticket.status == .open else { throw ReviewTicket.notOpen(ticket) }
            try await Self.rows("""
                UPDATE reviewticket SET status = \(ReviewTicket.Status.acknowledged.rawValue), acknowledgedat = \(at), acknowledgedby = \(actorID)
                WHERE id = \(id)
                """, on: connection)
            try await insert(AuditEntry.reviewStep(.reviewAcknowledge, on: ticket, by: actorID, at: at, context: context), on: connection)
            guard let found = try await item(id, on: connection) else { throw ReviewTicket.notFound(id) }
            return found
        }
    }

    public func resolveReview(id: String, by actorID: String, resolution: String?, now: Date) async throws -> ReviewItem {
        let context = AuditContext.current
        let at = now.millisecondRounded
        return try await transaction { connection in
            guard let row = try await Self.rows("SELECT * FROM reviewticket WHERE id = \(id) FOR UPDATE", on: connection).first else {
                throw ReviewTicket.notFound(id)
            }
            let ticket = try await opened(ReviewTicket(row))
            guard ticket.status != .resolved else { throw ReviewTicket.alreadyResolved(ticket) }
            let sealed = try await keys.seal(resolution, .reviewResolution, row: id, scope: .user(ticket.userID))
            try await Self.rows("""
                UPDATE reviewticket SET status = \(ReviewTicket.Status.resolved.rawValue), resolvedat = \(at), resolvedby = \(actorID),
                                        resolution = \(sealed)
                WHERE id = \(id)
                """, on: connection)
            try await insert(AuditEntry.reviewStep(.reviewResolve, on: ticket, by: actorID, at: at, context: context), on: connection)
            guard let found = try await item(id, on: connection) else { throw ReviewTicket.notFound(id) }
            return found
        }
    }

    /// Rows another node is claiming are skipped, not waited for (`SKIP LOCKED`); the lease then
    /// keeps them from every other node while the post is under way, outside any transaction.
    public func claimReviewDeliveries(owner: String, limit: Int, lease: TimeInterval, now: Date) async throws -> [ReviewItem] {
        guard limit > 0 else { return [] }
        let at = now.millisecondRounded
        return try await transaction { connection in
            let claimed = try await Self.rows("""
                UPDATE reviewoutbox SET leaseowner = \(owner), leaseuntil = \(at.addingTimeInterval(lease))
                WHERE ticketid IN (
                    SELECT ticketid FROM reviewoutbox
                    WHERE deliveredat IS NULL AND nextattemptat <= \(at) AND (leaseuntil IS NULL OR leaseuntil <= \(at))
                    ORDER BY nextattemptat, ticketid COLLATE "C" LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED)
                RETURNING ticketid
                """, on: connection).map { try $0.makeRandomAccess()[0].decode(String.self) }
            var items: [ReviewItem] = []
            for id in claimed {
                if let found = try await item(id, on: connection) { items.append(found) }
            }
            // In the order they were due, as SQLite gives them.
            return items.sorted { ($0.delivery?.nextAttemptAt ?? .distantPast, $0.ticket.id) < ($1.delivery?.nextAttemptAt ?? .distantPast, $1.ticket.id) }
        }
    }

    @discardableResult
    public func recordReviewDelivery(ticketID: String, owner: String, outcome: ReviewDeliveryOutcome, now: Date) async throws -> Bool {
        let at = now.millisecondRounded
        switch outcome {
        case .delivered(let remoteKey):
            return try await !rows("""
                UPDATE reviewoutbox SET attempts = attempts + 1, deliveredat = \(at), remotekey = \(remoteKey), lasterror = NULL,
                                        leaseowner = NULL, leaseuntil = NULL
                WHERE ticketid = \(ticketID) AND leaseowner = \(owner) AND deliveredat IS NULL RETURNING ticketid
                """).isEmpty
        case .failed(let error, let retryAt):
            return try await !rows("""
                UPDATE reviewoutbox SET attempts = attempts + 1, lasterror = \(String(error.prefix(ReviewDelivery.errorLength))),
                                        nextattemptat = \(retryAt.millisecondRounded), leaseowner = NULL, leaseuntil = NULL
                WHERE ticketid = \(ticketID) AND leaseowner = \(owner) AND deliveredat IS NULL RETURNING ticketid
                """).isEmpty
        }
    }
}

extension ReviewTicket {
    /// A `reviewticket` row (`SELECT *`).
    init(_ row: PostgresRow) throws {
        let columns = RowColumns(row)
        try self.init(id: columns["id"], kind: columns.raw("kind"), status: columns.raw("status"), assistant: columns["assistant"],
                      userID: columns["userid"], threadID: columns["threadid"], turnID: columns["turnid"], messageID: columns["messageid"],
                      summary: columns["summary"], score: columns["score"], reason: columns["reason"], note: columns["note"],
                      createdAt: columns.date("createdat"), acknowledgedAt: columns.date("acknowledgedat"), acknowledgedBy: columns["acknowledgedby"],
                      resolvedAt: columns.date("resolvedat"), resolvedBy: columns["resolvedby"], resolution: columns["resolution"],
                      dedupeKey: columns["dedupekey"])
    }
}

extension ReviewDelivery {
    /// A `reviewoutbox` row (`SELECT *`).
    init(_ row: PostgresRow) throws {
        let columns = RowColumns(row)
        try self.init(ticketID: columns["ticketid"], createdAt: columns.date("createdat"), attempts: columns["attempts"],
                      nextAttemptAt: columns.date("nextattemptat"), lastError: columns["lasterror"], deliveredAt: columns.date("deliveredat"),
                      remoteKey: columns["remotekey"], leaseOwner: columns["leaseowner"], leaseUntil: columns.date("leaseuntil"))
    }
}

extension ReviewItem {
    /// A ticket row joined with its outbox row's columns (`outbox_ticketid`, `outbox_createdat`, …).
    init(joined row: PostgresRow) throws {
        let columns = RowColumns(row)
        let ticket = try ReviewTicket(row)
        let outboxID: String? = try columns["outbox_ticketid"]
        let delivery = try outboxID.map { id in
            try ReviewDelivery(ticketID: id, createdAt: columns.date("outbox_createdat"), attempts: columns["attempts"],
                               nextAttemptAt: columns.date("nextattemptat"), lastError: columns["lasterror"], deliveredAt: columns.date("deliveredat"),
                               remoteKey: columns["remotekey"], leaseOwner: columns["leaseowner"], leaseUntil: columns.date("leaseuntil"))
        }
        self.init(ticket: ticket, delivery: delivery)
    }
}
