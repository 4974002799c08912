import Foundation
import GriotSafety
import GriotStore
import Logging
import ServiceLifecycle

/// Posts the review queue's outbox to the tracker (`ReviewWebhook`), beside the node's other
/// services: claims the due tickets (a lease in the database, so nodes sharing PostgreSQL never
/// post one ticket at once), posts each with `Idempotency-Key: <ticket id>`, and records the
/// outcome; a failure waits out an exponential back-off with jitter. Everything it knows is in
/// the outbox table, so a restarted node, or another node, carries on where it stopped; a
/// tracker that honours the key creates one issue however many times a ticket is posted.
///
/// ```swift
/// let delivery = ReviewDeliveryService(chats: engine.chats, scrubber: engine.safety.scrubber, webhook: webhook, logger: logger)
/// // passed to the Application's services; ServiceLifecycle runs and stops it
/// ```
public final class ReviewDeliveryService: Service, Sendable {
    let chats: any ChatStore
    let scrubber: PIIScrubber?
    let webhook: ReviewWebhook
    let transport: any ReviewWebhookTransport
    let logger: Logger
    /// This worker's name on the leases it takes.
    public let owner: String
    /// Tickets claimed at a time.
    static let batch = 10

    public init(chats: any ChatStore, scrubber: PIIScrubber?, webhook: ReviewWebhook, transport: any ReviewWebhookTransport = URLSessionTransport(),
                owner: String = "node-" + UUID().uuidString.lowercased().prefix(8), logger: Logger = Logger(label: "griot.reviews")) {
        self.chats = chats
        self.scrubber = scrubber
        self.webhook = webhook
        self.transport = transport
        self.owner = owner
        self.logger = logger
    }

    public func run() async throws {
        // Stops with the service group on SIGTERM; a post under way is given up, and its lease
        // lapses for the next node (the idempotency key makes a second post harmless).
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let posted = await self.deliverDue()
                if posted < Self.batch { try await Task.sleep(for: .milliseconds(Int(self.webhook.pollInterval * 1000))) }
            }
        }
    }

    /// Posts every due ticket it can claim now; returns how many it tried.
    @discardableResult
    public func deliverDue(now: @Sendable () -> Date = Date.init) async -> Int {
        let tickets: [ReviewItem]
        do {
            tickets = try await chats.claimReviewDeliveries(owner: owner, limit: Self.batch, lease: webhook.lease, now: now())
        } catch {
            logger.error("could not read the review outbox: \(error); trying again in \(webhook.pollInterval) s")
            return 0
        }
        for item in tickets {
            if Task.isCancelled { break }
            await deliver(item.ticket, attempts: item.delivery?.attempts ?? 0, now: now)
        }
        return tickets.count
    }

    private func deliver(_ ticket: ReviewTicket, attempts: Int, now: @Sendable () -> Date) async {
        var headers = ["Content-Type": "application/json", "Accept": "application/json", "Idempotency-Key": ticket.id]
        if let authorization = webhook.authorization { headers["Authorization"] = authorization }
        let body = ReviewIssue(ticket: ticket, maskedQuestion: await maskedQuestion(ticket)).body(projectKey: webhook.projectKey, issueType: webhook.issueType)
        let outcome: ReviewDeliveryOutcome
        do {
            let answer = try await transport.post(webhook.url, headers: headers, body: body, timeout: webhook.timeout)
            if (200..<300).contains(answer.status) {
                outcome = .delivered(remoteKey: ReviewIssue.remoteKey(in: answer.body))
            } else {
                let text = String(decoding: answer.body.prefix(200), as: UTF8.self)
                outcome = failure("HTTP \(answer.status): \(text)", attempts: attempts, now: now())
            }
        } catch {
            outcome = failure("\(error)", attempts: attempts, now: now())
        }
        do {
            let recorded = try await chats.recordReviewDelivery(ticketID: ticket.id, owner: owner, outcome: outcome, now: now())
            switch outcome {
            case .delivered(let key):
                logger.info("review ticket delivered", metadata: ["ticket_id": .string(ticket.id), "remote_key": .string(key ?? ""),
                                                                  "recorded": .stringConvertible(recorded)])
            case .failed(let error, let retryAt):
                logger.warning("review ticket not delivered", metadata: ["ticket_id": .string(ticket.id), "error": .string(error),
                                                                        "retry_at": .string(retryAt.ISO8601Format())])
            }
        } catch {
            logger.error("could not record the delivery of review ticket \(ticket.id): \(error); its lease lapses and it is posted again")
        }
    }

    private func failure(_ error: String, attempts: Int, now: Date) -> ReviewDeliveryOutcome {
        .failed(error: error, retryAt: now.addingTimeInterval(webhook.delay(afterAttempts: attempts + 1)))
    }

    /// The asker's question, masked as operators read it, for the kinds whose reviewer needs it
    /// (a poorly grounded, copied or reported reply). Left out for a blocked message (its words
    /// are what was refused) and a crisis (health data stays in Griot: the tracker gets the link),
    /// without a scrubber (fail closed), and when the message is gone.
    private func maskedQuestion(_ ticket: ReviewTicket) async -> String? {
        guard let scrubber, [.lowGroundedness, .copyrightReview, .userReport].contains(ticket.kind),
              let turnID = ticket.turnID, let turn = try? await chats.turn(id: turnID),
              let message = try? await chats.message(id: turn.userMessageID), message.role == .user else { return nil }
        return scrubber.scrub(message.content).text
    }
}
