import Foundation
import GriotExport
import GriotStore
import Testing

@Suite("Thread export as JSON")
struct ThreadExportJSONTests {
    private func document(_ export: ThreadExport) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: export.json()) as? [String: Any])
    }

    private func messages(_ export: ThreadExport) throws -> [[String: Any]] {
        try #require(document(export)["messages"] as? [[String: Any]])
    }

    @Test("The document has exactly the documented keys, at every level")
    func shape() throws {
        let export = ExportFixtures.export([
            ExportFixtures.message(1, .user, "Who was Aunt Lil?"),
            ExportFixtures.message(2, .assistant, "She ran the boarding house on Dumaine Street."),
        ])
        let document = try document(export)
        #expect(Set(document.keys) == ["thread", "messages", "exported_at", "exported_by"])
        let thread = try #require(document["thread"] as? [String: Any])
        #expect(Set(thread.keys) == ["id", "assistant", "user_id", "course_id", "title", "created_at"])
        #expect(thread["id"] as? String == "t-1")
        #expect(thread["assistant"] as? String == "griot")
        #expect(thread["user_id"] as? String == "u-ruth")
        #expect(thread["course_id"] as? String == "oral-history-101")
        #expect(thread["title"] as? String == "Who was Aunt Lil?")
        #expect(document["exported_by"] as? String == "coach@example.edu")

        let first = try #require(try messages(export).first)
        #expect(Set(first.keys) == ["id", "role", "content", "status", "created_at"])
        #expect(first["id"] as? String == "m-1")
        #expect(first["role"] as? String == "user")
        #expect(first["content"] as? String == "Who was Aunt Lil?")
        #expect(first["status"] as? String == "complete")
    }

    @Test("Dates are ISO 8601 in UTC")
    func dates() throws {
        let export = ExportFixtures.export([ExportFixtures.message(2, .user, "When did the flood come?")])
        let document = try document(export)
        let thread = try #require(document["thread"] as? [String: Any])
        #expect(thread["created_at"] as? String == "2025-05-01T14:03:00Z")
        #expect(document["exported_at"] as? String == "2025-05-02T09:00:00Z")
        #expect(try messages(export).first?["created_at"] as? String == "2025-05-01T14:04:00Z")
    }

    @Test("Messages come in thread order, whatever order they were handed over in")
    func ordering() throws {
        let messages = (1...6).map { ExportFixtures.message($0, $0.isMultiple(of: 2) ? .assistant : .user, "Message \($0)") }
        let export = ExportFixtures.export([messages[3], messages[0], messages[5], messages[2], messages[1], messages[4]])
        #expect(try self.messages(export).map { $0["id"] as? String } == ["m-1", "m-2", "m-3", "m-4", "m-5", "m-6"])
    }

    @Test("Deleted messages are left out")
    func deletedMessages() throws {
        let export = ExportFixtures.export([
            ExportFixtures.message(1, .user, "Who was Aunt Lil?"),
            ExportFixtures.message(2, .assistant, "A reply the user deleted.", deleted: true),
            ExportFixtures.message(3, .user, "Tell me about the ledger."),
        ])
        let contents = try messages(export).compactMap { $0["content"] as? String }
        #expect(contents == ["Who was Aunt Lil?", "Tell me about the ledger."])
    }

    @Test("Stopped, failed, streaming and blocked messages are kept with their status; a blocked one without its text")
    func statuses() throws {
        let export = ExportFixtures.export([
            ExportFixtures.message(1, .user, "Who was Aunt Lil?"),
            ExportFixtures.message(2, .assistant, "She ran the board", status: .stopped),
            ExportFixtures.message(3, .user, "Go on."),
            ExportFixtures.message(4, .assistant, "", status: .failed),
            ExportFixtures.message(5, .user, "Something the safety check stopped.", status: .blocked),
            ExportFixtures.message(6, .assistant, "Still arriv", status: .streaming),
        ])
        #expect(try messages(export).map { $0["status"] as? String }
                == ["complete", "stopped", "complete", "failed", "blocked", "streaming"])
        #expect(try messages(export)[1]["content"] as? String == "She ran the board")
        #expect(try messages(export)[4]["content"] as? String == "", "what moderation refused is not handed on")
        #expect(try !String(decoding: export.json(), as: UTF8.self).contains("safety check stopped"))
    }

    @Test("A thread outside any course has course_id null, not a missing key")
    func noCourse() throws {
        let export = ExportFixtures.export([], thread: ExportFixtures.thread(courseID: nil), courseTitle: nil)
        let thread = try #require(try document(export)["thread"] as? [String: Any])
        #expect(thread.keys.contains("course_id"))
        #expect(thread["course_id"] is NSNull)
        #expect(try messages(export).isEmpty)
    }

    @Test("Messages of another thread never reach the export")
    func otherThreads() throws {
        let export = ExportFixtures.export([
            ExportFixtures.message(1, .user, "Mine"),
            ExportFixtures.message(2, .user, "Someone else's", threadID: "t-2"),
        ])
        #expect(try messages(export).map { $0["content"] as? String } == ["Mine"])
    }

    @Test("Text the PDF cannot show survives exactly in JSON")
    func unicodeContent() throws {
        let content = "“Tante Lil” — 🎉 上海 (1932) \\ back"
        let export = ExportFixtures.export([ExportFixtures.message(1, .user, content)])
        #expect(try messages(export).first?["content"] as? String == content)
    }
}
