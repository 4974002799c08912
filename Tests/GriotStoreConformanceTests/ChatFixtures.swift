import Foundation
import GriotStore

/// What the chat store conformance tests share: a fixed clock, and a question with its reply
/// and turn as the chat pipeline stores them.
enum ChatFixtures {
    /// A fixed moment with a whole number of seconds (2025-06-15 15:06:40 UTC).
    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)

    static func days(_ count: Double) -> TimeInterval { count * 86_400 }

    /// A turn snapshot as the pipeline writes it: the question, the reply's text, events,
    /// recording and citations (the copies a delete must reach), flags and groundedness.
    static func snapshot(question: String, reply: String, flags: [String] = [], groundedness: Double? = nil) -> String {
        var object: [String: Any] = [
            "question": question, "text": reply, "events": [["type": "delta", "text": reply]], "recording": ["reply": reply],
            "citations": [["passage": "p-1"]], "flags": flags.map { ["kind": $0] },
        ]
        if let groundedness { object["groundedness"] = groundedness }
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// A snapshot's JSON as a dictionary, to compare values rather than text (PostgreSQL's jsonb
    /// writes keys in its own order).
    static func json(_ snapshot: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(snapshot.utf8)) as? [String: Any] ?? [:]
    }

    /// A question and its reply, with the reply's turn (whose snapshot copies both texts).
    @discardableResult
    static func exchange(_ chats: any ChatStore, threadID: String, question: String, reply: String, at: Date, assistant: String = "griot",
                         status: MessageStatus = .complete, flags: [String] = [], groundedness: Double? = nil)
        async throws -> (question: MessageRecord, reply: MessageRecord, turn: TurnRecord) {
        let turnID = UUID().uuidString.lowercased()
        let asked = try await chats.appendMessage(threadID: threadID, role: .user, content: question, turnID: turnID, now: at)
        let answered = try await chats.appendMessage(threadID: threadID, role: .assistant, content: reply, status: status, turnID: turnID, now: at)
        let turn = TurnRecord(id: turnID, threadID: threadID, userMessageID: asked.id, assistantMessageID: answered.id, assistant: assistant,
                              promptVersion: 1, promptHash: "h", provider: "extractive", model: "griot-extractive-1", status: status,
                              startedAt: at, finishedAt: status == .streaming ? nil : at,
                              snapshot: snapshot(question: question, reply: reply, flags: flags, groundedness: groundedness))
        try await chats.saveTurn(turn)
        return (asked, answered, turn)
    }

    /// Names and texts in several scripts, as people write them.
    static let scripts = [
        "Zofia Łukasiewicz",
        "李秀英",
        "مرحبا، هل تتذكر جدتي فاطمة؟",
        "Grandma's pie 🥧👵🏽 and 👨‍👩‍👧‍👦",
        "Ame\u{301}lie and Zoe\u{308} (combining marks, not precomposed)",
        "Ελληνικά, हिन्दी, ไทย, 한국어",
    ]
}
