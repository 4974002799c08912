import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GriotStore

/// Where review tickets are posted, and how: a Jira-compatible "create issue" endpoint
/// (`POST /rest/api/2/issue`, or anything that takes the same body), read from the environment.
///
/// | setting | environment | default |
/// |---|---|---|
/// | the endpoint; unset: tickets wait in the outbox, nothing is posted | `GRIOT_REVIEW_WEBHOOK_URL` | unset |
/// | the `Authorization` header sent with each post (`Basic …`, `Bearer …`) | `GRIOT_REVIEW_WEBHOOK_AUTHORIZATION` | none |
/// | the tracker's project key | `GRIOT_REVIEW_PROJECT_KEY` | `TS` |
/// | the issue type | `GRIOT_REVIEW_ISSUE_TYPE` | `Task` |
/// | first and longest wait between attempts, seconds | `GRIOT_REVIEW_RETRY_BASE_SECONDS`, `GRIOT_REVIEW_RETRY_MAX_SECONDS` | 2, 3600 |
/// | how often the outbox is read when it was empty, seconds | `GRIOT_REVIEW_POLL_SECONDS` | 5 |
///
/// ```swift
/// if let webhook = try ReviewWebhook(environment: ProcessInfo.processInfo.environment) { … ReviewDeliveryService(…, webhook: webhook) }
/// ```
public struct ReviewWebhook: Sendable {
    public var url: URL
    public var authorization: String?
    public var projectKey: String
    public var issueType: String
    public var baseDelay: Double
    public var maximumDelay: Double
    public var pollInterval: Double
    /// How long one post may take before it counts as failed.
    public var timeout: Double
    /// How long a claimed ticket stays with the node posting it (above `timeout`, so a slow post
    /// is not taken over; a node that dies mid-post gives its tickets back after this).
    public var lease: Double

    public init(url: URL, authorization: String? = nil, projectKey: String = "TS", issueType: String = "Task", baseDelay: Double = 2,
                maximumDelay: Double = 3600, pollInterval: Double = 5, timeout: Double = 10, lease: Double = 60) {
        self.url = url
        self.authorization = authorization
        self.projectKey = projectKey
        self.issueType = issueType
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.pollInterval = pollInterval
        self.timeout = timeout
        self.lease = max(lease, timeout * 2)
    }

    /// The webhook the environment names, or nil when `GRIOT_REVIEW_WEBHOOK_URL` is unset.
    public init?(environment: [String: String]) throws {
        guard let text = environment["GRIOT_REVIEW_WEBHOOK_URL"], !text.isEmpty else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw ReviewWebhookError("GRIOT_REVIEW_WEBHOOK_URL=\(text) is not an http(s) URL; set e.g. https://example.atlassian.net/rest/api/2/issue, or unset it")
        }
        func seconds(_ name: String, _ fallback: Double) throws -> Double {
            guard let value = environment[name], !value.isEmpty else { return fallback }
            guard let number = Double(value), number.isFinite, number > 0 else {
                throw ReviewWebhookError("\(name)=\(value) is not a positive number of seconds; set e.g. \(name)=\(fallback), or unset it")
            }
            return number
        }
        let key = environment["GRIOT_REVIEW_PROJECT_KEY"].flatMap { $0.isEmpty ? nil : $0 } ?? "TS"
        guard key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw ReviewWebhookError("GRIOT_REVIEW_PROJECT_KEY=\(key) is not a project key; use letters, digits and _ only, e.g. TS")
        }
        let base = try seconds("GRIOT_REVIEW_RETRY_BASE_SECONDS", 2)
        let maximum = try seconds("GRIOT_REVIEW_RETRY_MAX_SECONDS", 3600)
        guard base <= maximum else {
            throw ReviewWebhookError("GRIOT_REVIEW_RETRY_BASE_SECONDS (\(base)) is above GRIOT_REVIEW_RETRY_MAX_SECONDS (\(maximum)); the first wait must be the shorter")
        }
        self.init(url: url, authorization: environment["GRIOT_REVIEW_WEBHOOK_AUTHORIZATION"].flatMap { $0.isEmpty ? nil : $0 }, projectKey: key,
                  issueType: environment["GRIOT_REVIEW_ISSUE_TYPE"].flatMap { $0.isEmpty ? nil : $0 } ?? "Task",
                  baseDelay: base, maximumDelay: maximum, pollInterval: try seconds("GRIOT_REVIEW_POLL_SECONDS", 5))
    }

    /// The wait before attempt `attempts + 1`: exponential from `baseDelay`, at most
    /// `maximumDelay`, with "equal jitter" (half fixed, half random), so that nodes that failed
    /// together do not all try again at the same moment.
    public func delay(afterAttempts attempts: Int, random: Double = Double.random(in: 0...1)) -> Double {
        let exponential = baseDelay * pow(2, Double(max(0, min(attempts - 1, 30))))
        let capped = min(maximumDelay, exponential)
        return capped / 2 + capped / 2 * random
    }
}

/// A setting of the review webhook that cannot be used, in words that say what to set.
public struct ReviewWebhookError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// What the tracker receives for a ticket: Jira's "create issue" body. It carries what operators
/// may read (`OperatorView`'s rule) and less: ids, the assistant, the kind, the safety stage's
/// own words and score, a report's reason and its note (moderated and masked when it was made),
/// and the asker's question with personal details masked. Never a user id, never a reply's text
/// (which may quote a private story), never an unmasked question: without a PII scrubber the
/// question is left out.
public struct ReviewIssue: Sendable {
    public var ticket: ReviewTicket
    /// The question the ticket's turn answered, masked; nil to leave it out.
    public var maskedQuestion: String?

    public init(ticket: ReviewTicket, maskedQuestion: String?) {
        self.ticket = ticket
        self.maskedQuestion = maskedQuestion
    }

    /// The longest question quoted, in characters.
    public static let questionLength = 500

    public func body(projectKey: String, issueType: String) -> Data {
        let turn = ticket.turnID.map { " (turn \($0.prefix(8)))" } ?? ""
        var lines = [
            "Griot review ticket \(ticket.id): \(ticket.kind.title.lowercased()).",
            "",
            "Kind: \(ticket.kind.rawValue)",
            "Assistant: \(ticket.assistant)",
            "Flagged at: \(ticket.createdAt.ISO8601Format())",
            "Thread: \(ticket.threadID)",
        ]
        if let turnID = ticket.turnID { lines.append("Turn: \(turnID)") }
        if let messageID = ticket.messageID { lines.append("Message: \(messageID)") }
        lines.append("Finding: \(ticket.summary)")
        if let score = ticket.score { lines.append("Score: \(String(format: "%.2f", score))") }
        if let reason = ticket.reason { lines.append("Report reason: \(reason)") }
        if let note = ticket.note, !note.isEmpty { lines.append("Reporter's note (personal details masked): \(note)") }
        if let question = maskedQuestion, !question.isEmpty {
            lines.append("Question (personal details masked): \(question.prefix(Self.questionLength))")
        }
        lines += ["", "Acknowledge and resolve it in Griot: GET /api/ops/reviews/\(ticket.id)"]
        let fields: [String: Any] = [
            "project": ["key": projectKey],
            "summary": "[Griot] \(ticket.kind.title): \(ticket.assistant)\(turn)",
            "description": lines.joined(separator: "\n"),
            "issuetype": ["name": issueType],
            "labels": ["griot", "griot-review", ticket.kind.rawValue, "assistant-\(Self.label(ticket.assistant))"],
        ]
        return (try? JSONSerialization.data(withJSONObject: ["fields": fields], options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }

    /// Jira labels hold no spaces.
    static func label(_ text: String) -> String {
        String(text.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "-" })
    }

    /// The issue key in a tracker's answer (`{"id": "10000", "key": "TS-12", …}`), if it has one.
    public static func remoteKey(in answer: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: answer) as? [String: Any] else { return nil }
        return (object["key"] as? String) ?? (object["id"] as? String) ?? (object["id"] as? Int).map(String.init)
    }
}

/// How a ticket is posted: one HTTP request and its answer. The service's is `URLSessionTransport`.
public protocol ReviewWebhookTransport: Sendable {
    func post(_ url: URL, headers: [String: String], body: Data, timeout: Double) async throws -> (status: Int, body: Data)
}

/// Posts with Foundation's URLSession (libcurl on Linux): the server target needs no HTTP client
/// of its own for one small request now and then.
public struct URLSessionTransport: ReviewWebhookTransport {
    public init() {}

    public func post(_ url: URL, headers: [String: String], body: Data, timeout: Double) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        return try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: (status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data ?? Data()))
                }
            }.resume()
        }
    }
}
