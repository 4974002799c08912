import Foundation
import GRDB
@testable import GriotStore

/// A fixed moment with a whole number of seconds, so that waits computed from it are exact.
let t0 = Date(timeIntervalSince1970: 1_750_000_000)

func days(_ count: Double) -> TimeInterval { count * 86_400 }

/// A chat store on a private in-memory database.
func makeChats() throws -> SQLiteChatStore {
    try SQLiteChatStore(writer: SQLiteStoryStore.inMemory().writer)
}

/// A database file in a directory of its own, removed when the value goes.
final class TemporaryDatabase {
    let directory: URL
    var path: String { directory.appendingPathComponent("griot.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("griot-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// A connection pool (WAL) on the file, as each service node opens it.
    func pool() throws -> DatabasePool {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        return try DatabasePool(path: path, configuration: configuration)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// A question and its reply, with the reply's turn (whose snapshot copies the reply's text,
/// as the chat pipeline's does).
@discardableResult
func exchange(_ chats: SQLiteChatStore, threadID: String, question: String, reply: String, at: Date) async throws -> (question: MessageRecord, reply: MessageRecord) {
    let turnID = UUID().uuidString
    let asked = try await chats.appendMessage(threadID: threadID, role: .user, content: question, turnID: turnID, now: at)
    let answered = try await chats.appendMessage(threadID: threadID, role: .assistant, content: reply, turnID: turnID, now: at)
    try await chats.saveTurn(TurnRecord(id: turnID, threadID: threadID, userMessageID: asked.id, assistantMessageID: answered.id, assistant: "griot",
                                  promptVersion: 1, promptHash: "h", provider: "extractive", model: "griot-extractive-1", status: .complete,
                                  startedAt: at, finishedAt: at, snapshot: #"{"text":"\#(reply)"}"#))
    return (asked, answered)
}

/// How many rows `table` holds.
func count(_ chats: SQLiteChatStore, _ table: String, where condition: String = "1", _ arguments: StatementArguments = []) throws -> Int {
    try chats.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE \(condition)", arguments: arguments) ?? 0 }
}
