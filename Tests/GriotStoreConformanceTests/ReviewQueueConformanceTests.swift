import Foundation
import GriotStore
import Testing

/// The review queue (issue 37, item 63) on each backend: tickets opened with their verdicts,
/// their status steps, filters, reports, and the outbox's claims, leases and outcomes.
@Suite("Chat store: review queue")
struct ReviewQueueConformanceTests {
    typealias F = ChatFixtures

    static func verdict(_ turn: TurnRecord, stage: String, decision: String, score: Double = 0.2, messageID: String? = nil, at: Date)
        -> SafetyVerdictRecord {
        SafetyVerdictRecord(at: at, turnID: turn.id, threadID: turn.threadID, messageID: messageID ?? turn.assistantMessageID, userID: "u-ruth",
                            ipHash: nil, stage: stage, score: score, decision: decision, reason: "\(stage) said \(decision)")
    }

    @Test("A verdict that needs a person opens one ticket with its outbox row; the others open none", arguments: StoreBackend.allCases)
    func verdictsOpenTickets(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "coach", userID: "u-ruth", now: F.t0)
            let (question, _, turn) = try await F.exchange(chats, threadID: thread.id, question: "q", reply: "r", at: F.t0, assistant: "coach")
            try await chats.recordVerdicts([
                Self.verdict(turn, stage: "moderation", decision: "allow", at: F.t0),
                Self.verdict(turn, stage: "pii", decision: "mask", at: F.t0),
                Self.verdict(turn, stage: "groundedness", decision: "flag", score: 0.21, at: F.t0 + 1),
                Self.verdict(turn, stage: "copyright", decision: "flag", score: 0.95, at: F.t0 + 2),
                Self.verdict(turn, stage: "crisis", decision: "route", score: 0.9, messageID: question.id, at: F.t0 + 3),
            ])
            // The same flag recorded again (a retry of the same turn's write) opens no second ticket.
            try await chats.recordVerdicts([Self.verdict(turn, stage: "groundedness", decision: "flag", at: F.t0 + 4)])

            let items = try await chats.reviewItems(ReviewFilter())
            #expect(items.map(\.ticket.kind) == [.crisis, .copyrightReview, .lowGroundedness])
            #expect(items.allSatisfy { $0.ticket.status == .open && $0.ticket.assistant == "coach" && $0.ticket.turnID == turn.id })
            #expect(items.allSatisfy { $0.ticket.userID == "u-ruth" && $0.ticket.threadID == thread.id })
            #expect(items.first?.ticket.messageID == question.id, "a crisis is about the user's message")
            #expect(items.last?.ticket.messageID == turn.assistantMessageID, "a groundedness flag is about the reply")
            #expect(items.last?.ticket.score == 0.21 && items.last?.ticket.summary == "groundedness: groundedness said flag")
            #expect(items.last?.ticket.createdAt == F.t0 + 1)
            for item in items {
                let delivery = try #require(item.delivery)
                #expect(delivery.state == .pending && delivery.attempts == 0 && delivery.nextAttemptAt == item.ticket.createdAt)
            }

            // Each blocked message is its own event, even on the same message (a blocked send, then a blocked edit).
            try await chats.recordVerdicts([Self.verdict(turn, stage: "moderation", decision: "block", messageID: question.id, at: F.t0 + 10)])
            try await chats.recordVerdicts([Self.verdict(turn, stage: "moderation", decision: "block", messageID: question.id, at: F.t0 + 20)])
            #expect(try await chats.reviewItems(ReviewFilter(kind: .blocked)).count == 2)
        }
    }

    @Test("open → acknowledged → resolved, each with who and when and an audit entry; a step taken twice is a conflict",
          arguments: StoreBackend.allCases)
    func statusSteps(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let (_, _, turn) = try await F.exchange(chats, threadID: thread.id, question: "q", reply: "r", at: F.t0)
            try await chats.recordVerdicts([Self.verdict(turn, stage: "groundedness", decision: "flag", at: F.t0)])
            let id = try #require(try await chats.reviewItems(ReviewFilter()).first?.ticket.id)

            let acknowledged = try await chats.acknowledgeReview(id: id, by: "u-ops", now: F.t0 + 60)
            #expect(acknowledged.ticket.status == .acknowledged)
            #expect(acknowledged.ticket.acknowledgedBy == "u-ops" && acknowledged.ticket.acknowledgedAt == F.t0 + 60)
            await #expect(throws: ChatStoreError.self) { try await chats.acknowledgeReview(id: id, by: "u-other", now: F.t0 + 61) }

            let resolved = try await chats.resolveReview(id: id, by: "u-admin", resolution: "checked the passages", now: F.t0 + 120)
            #expect(resolved.ticket.status == .resolved && resolved.ticket.resolvedBy == "u-admin" && resolved.ticket.resolvedAt == F.t0 + 120)
            #expect(resolved.ticket.resolution == "checked the passages")
            #expect(resolved.ticket.acknowledgedBy == "u-ops", "the earlier step stays on record")
            do {
                _ = try await chats.resolveReview(id: id, by: "u-ops", resolution: nil, now: F.t0 + 121)
                Issue.record("a resolved ticket was resolved again")
            } catch let error as ChatStoreError {
                #expect(error.kind == .conflict)
            }
            do {
                _ = try await chats.acknowledgeReview(id: "no-such-ticket", by: "u-ops", now: F.t0)
                Issue.record("an unknown ticket was acknowledged")
            } catch let error as ChatStoreError {
                #expect(error.kind == .notFound)
            }

            let entries = try await chats.auditEntries(AuditFilter(actions: [.reviewAcknowledge, .reviewResolve]))
            #expect(entries.map(\.action) == [.reviewResolve, .reviewAcknowledge])
            #expect(entries.map(\.actorID) == ["u-admin", "u-ops"])
            #expect(entries.allSatisfy { $0.userID == "u-ruth" && ($0.details ?? "").contains(id) })
        }
    }

    @Test("Filters: status, kind, assistant, turn, date range and pages, newest first", arguments: StoreBackend.allCases)
    func filters(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let griot = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let coach = try await chats.createThread(assistant: "coach", userID: "u-ruth", now: F.t0)
            var turns: [TurnRecord] = []
            for index in 0..<4 {
                let thread = index.isMultiple(of: 2) ? griot : coach
                let at = F.t0 + Double(index) * 3600
                let (_, _, turn) = try await F.exchange(chats, threadID: thread.id, question: "q\(index)", reply: "r\(index)", at: at,
                                                        assistant: thread.assistant)
                try await chats.recordVerdicts([Self.verdict(turn, stage: index < 2 ? "groundedness" : "copyright", decision: "flag", at: at)])
                turns.append(turn)
            }
            let all = try await chats.reviewItems(ReviewFilter())
            #expect(all.map(\.ticket.turnID) == turns.reversed().map(\.id))
            _ = try await chats.acknowledgeReview(id: all[0].ticket.id, by: "u-ops", now: F.t0 + 9000)

            #expect(try await chats.reviewItems(ReviewFilter(status: .open)).count == 3)
            #expect(try await chats.reviewItems(ReviewFilter(status: .acknowledged)).map(\.ticket.id) == [all[0].ticket.id])
            #expect(try await chats.reviewItems(ReviewFilter(kind: .lowGroundedness)).map(\.ticket.turnID) == [turns[1].id, turns[0].id])
            #expect(try await chats.reviewItems(ReviewFilter(assistant: "coach")).map(\.ticket.turnID) == [turns[3].id, turns[1].id])
            #expect(try await chats.reviewItems(ReviewFilter(turnID: turns[2].id)).count == 1)
            let window = try await chats.reviewItems(ReviewFilter(since: F.t0 + 3600, until: F.t0 + 3 * 3600))
            #expect(window.map(\.ticket.turnID) == [turns[2].id, turns[1].id])
            #expect(try await chats.reviewItems(ReviewFilter(limit: 2, offset: 1)).map(\.ticket.id) == all[1...2].map(\.ticket.id))
            #expect(try await chats.reviewItems(ReviewFilter(limit: 0)).isEmpty)
        }
    }

    @Test("A report of a reply opens a user_report ticket once per reporter, audited; a user's own message is not a reply",
          arguments: StoreBackend.allCases)
    func reports(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let (question, reply, turn) = try await F.exchange(chats, threadID: thread.id, question: "q", reply: "r", at: F.t0)

            let first = try await chats.reportReply(messageID: reply.id, reporterID: "u-ruth", reason: .inaccurate, note: "Wrong year, call [PHONE]", now: F.t0 + 5)
            #expect(first.created)
            #expect(first.item.ticket.kind == .userReport && first.item.ticket.reason == "inaccurate" && first.item.ticket.note == "Wrong year, call [PHONE]")
            #expect(first.item.ticket.turnID == turn.id && first.item.ticket.messageID == reply.id && first.item.delivery?.state == .pending)
            let again = try await chats.reportReply(messageID: reply.id, reporterID: "u-ruth", reason: .harmful, note: nil, now: F.t0 + 6)
            #expect(!again.created && again.item.ticket.id == first.item.ticket.id && again.item.ticket.reason == "inaccurate")

            do {
                _ = try await chats.reportReply(messageID: question.id, reporterID: "u-ruth", reason: .other, note: nil, now: F.t0)
                Issue.record("the user's own message was reported as a reply")
            } catch let error as ChatStoreError {
                #expect(error.kind == .invalid)
            }
            do {
                _ = try await chats.reportReply(messageID: "m-none", reporterID: "u-ruth", reason: .other, note: nil, now: F.t0)
                Issue.record("a missing message was reported")
            } catch let error as ChatStoreError {
                #expect(error.kind == .notFound)
            }
            let entries = try await chats.auditEntries(AuditFilter(actions: [.reviewReport]))
            #expect(entries.count == 1 && entries.first?.actorID == "u-ruth" && entries.first?.messageID == reply.id)
            let details = entries.first?.details ?? ""
            #expect(details.contains("inaccurate") && !details.contains("Wrong year"), "the log never holds the note")
        }
    }

    @Test("The outbox: a lease keeps a ticket from other workers; failures wait until their retry; a delivery is final",
          arguments: StoreBackend.allCases)
    func outboxClaims(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let (_, reply, _) = try await F.exchange(chats, threadID: thread.id, question: "q", reply: "r", at: F.t0)
            let (item, _) = try await chats.reportReply(messageID: reply.id, reporterID: "u-ruth", reason: .other, note: nil, now: F.t0)
            let id = item.ticket.id

            #expect(try await chats.claimReviewDeliveries(owner: "a", limit: 10, lease: 30, now: F.t0 - 1).isEmpty, "not due before it was made")
            let claimed = try await chats.claimReviewDeliveries(owner: "a", limit: 10, lease: 30, now: F.t0 + 1)
            #expect(claimed.map(\.ticket.id) == [id] && claimed.first?.delivery?.attempts == 0)
            #expect(try await chats.claimReviewDeliveries(owner: "b", limit: 10, lease: 30, now: F.t0 + 2).isEmpty, "leased to a")
            #expect(try await !chats.recordReviewDelivery(ticketID: id, owner: "b", outcome: .delivered(remoteKey: "X"), now: F.t0 + 2),
                    "b holds no lease, so records nothing")

            #expect(try await chats.recordReviewDelivery(ticketID: id, owner: "a", outcome: .failed(error: "HTTP 500: down", retryAt: F.t0 + 10), now: F.t0 + 3))
            var stored = try #require(try await chats.reviewItem(id: id)?.delivery)
            #expect(stored.state == .retrying && stored.attempts == 1 && stored.lastError == "HTTP 500: down" && stored.nextAttemptAt == F.t0 + 10)
            #expect(stored.leaseOwner == nil)
            #expect(try await chats.claimReviewDeliveries(owner: "b", limit: 10, lease: 30, now: F.t0 + 9).isEmpty, "not due until its retry")

            // A worker that dies holding a lease gives the ticket back when the lease runs out.
            #expect(try await chats.claimReviewDeliveries(owner: "b", limit: 10, lease: 30, now: F.t0 + 10).count == 1)
            #expect(try await chats.claimReviewDeliveries(owner: "c", limit: 10, lease: 30, now: F.t0 + 39).isEmpty)
            let taken = try await chats.claimReviewDeliveries(owner: "c", limit: 10, lease: 30, now: F.t0 + 41)
            #expect(taken.first?.delivery?.attempts == 1)
            #expect(try await chats.recordReviewDelivery(ticketID: id, owner: "c", outcome: .delivered(remoteKey: "TS-7"), now: F.t0 + 42))
            #expect(try await !chats.recordReviewDelivery(ticketID: id, owner: "b", outcome: .failed(error: "late", retryAt: F.t0 + 99), now: F.t0 + 43))

            stored = try #require(try await chats.reviewItem(id: id)?.delivery)
            #expect(stored.state == .delivered && stored.remoteKey == "TS-7" && stored.attempts == 2 && stored.deliveredAt == F.t0 + 42)
            #expect(stored.lastError == nil)
            #expect(try await chats.claimReviewDeliveries(owner: "d", limit: 10, lease: 30, now: F.t0 + 1000).isEmpty, "delivered once, never again")
        }
    }

    @Test("Workers claiming at the same moment get disjoint tickets, and together all of them", arguments: StoreBackend.allCases)
    func concurrentClaims(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            for index in 0..<6 {
                let (_, _, turn) = try await F.exchange(chats, threadID: thread.id, question: "q\(index)", reply: "r\(index)", at: F.t0)
                try await chats.recordVerdicts([Self.verdict(turn, stage: "groundedness", decision: "flag", at: F.t0 + Double(index))])
            }
            let claims = try await withThrowingTaskGroup(of: [String].self) { group in
                for worker in 0..<3 {
                    group.addTask {
                        try await chats.claimReviewDeliveries(owner: "node-\(worker)", limit: 2, lease: 60, now: F.t0 + 10).map(\.ticket.id)
                    }
                }
                return try await group.reduce(into: [[String]]()) { $0.append($1) }
            }
            let claimed = claims.flatMap { $0 }
            #expect(claimed.count == 6 && Set(claimed).count == 6, "each ticket to exactly one worker: \(claims)")
            #expect(claims.allSatisfy { $0.count == 2 })
        }
    }

    @Test("An erasure removes the tickets about the user and the operator's name from the tickets they handled", arguments: StoreBackend.allCases)
    func erasure(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let ruth = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let simone = try await chats.createThread(assistant: "griot", userID: "u-simone", now: F.t0)
            let (_, ruthReply, _) = try await F.exchange(chats, threadID: ruth.id, question: "q", reply: "r", at: F.t0)
            let (_, simoneReply, _) = try await F.exchange(chats, threadID: simone.id, question: "q", reply: "r", at: F.t0)
            _ = try await chats.reportReply(messageID: ruthReply.id, reporterID: "u-ruth", reason: .other, note: "mine", now: F.t0)
            let kept = try await chats.reportReply(messageID: simoneReply.id, reporterID: "u-simone", reason: .other, note: nil, now: F.t0)
            _ = try await chats.acknowledgeReview(id: kept.item.ticket.id, by: "u-ruth", now: F.t0 + 1)

            try await chats.purgeUser(userID: "u-ruth", by: "u-ruth", now: F.t0 + 2)
            let left = try await chats.reviewItems(ReviewFilter())
            #expect(left.map(\.ticket.id) == [kept.item.ticket.id])
            #expect(left.first?.ticket.acknowledgedBy == nil && left.first?.ticket.status == .acknowledged)
        }
    }
}
