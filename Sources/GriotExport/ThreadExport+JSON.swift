import Foundation
import GriotStore

extension ThreadExport {
    /// The export as UTF-8 JSON, pretty-printed with sorted keys so the same thread always
    /// gives the same bytes. Dates are ISO 8601 in UTC (`2025-05-01T14:03:00Z`).
    ///
    /// ```json
    /// {
    ///   "exported_at" : "2025-05-02T09:00:00Z",
    ///   "exported_by" : "coach@example.edu",
    ///   "messages" : [
    ///     { "content" : "Who was Aunt Lil?", "created_at" : "2025-05-01T14:03:00Z",
    ///       "id" : "m-1", "role" : "user", "status" : "complete" }
    ///   ],
    ///   "thread" : {
    ///     "assistant" : "griot", "course_id" : "oral-history-101", "created_at" : "2025-05-01T14:02:00Z",
    ///     "id" : "t-1", "title" : "Who was Aunt Lil?", "user_id" : "u-ruth"
    ///   }
    /// }
    /// ```
    ///
    /// `course_id` is `null` for a thread outside a course. `role` is `user` or `assistant`;
    /// `status` is `complete`, `streaming`, `stopped`, `failed` or `blocked`.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(ExportedThreadDocument(self))
    }
}

/// The JSON document, kept apart from the records so a schema change in the store cannot
/// quietly change what exports look like.
private struct ExportedThreadDocument: Encodable {
    struct Thread: Encodable {
        var id: String
        var assistant: String
        var userID: String
        var courseID: String?
        var title: String
        var createdAt: Date

        enum CodingKeys: String, CodingKey {
            case id, assistant, userID = "user_id", courseID = "course_id", title, createdAt = "created_at"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(assistant, forKey: .assistant)
            try container.encode(userID, forKey: .userID)
            // Written as null rather than left out, so every export has the same keys.
            try container.encode(courseID, forKey: .courseID)
            try container.encode(title, forKey: .title)
            try container.encode(createdAt, forKey: .createdAt)
        }
    }

    struct Message: Encodable {
        var id: String
        var role: String
        var content: String
        var status: String
        var createdAt: Date

        enum CodingKeys: String, CodingKey {
            case id, role, content, status, createdAt = "created_at"
        }
    }

    var thread: Thread
    var messages: [Message]
    var exportedAt: Date
    var exportedBy: String

    enum CodingKeys: String, CodingKey {
        case thread, messages, exportedAt = "exported_at", exportedBy = "exported_by"
    }

    init(_ export: ThreadExport) {
        let record = export.thread
        thread = Thread(id: record.id, assistant: record.assistant, userID: record.userID, courseID: record.courseID,
                        title: record.title, createdAt: record.createdAt)
        messages = export.messages.map {
            Message(id: $0.id, role: $0.role.rawValue, content: $0.content, status: $0.status.rawValue, createdAt: $0.createdAt)
        }
        exportedAt = export.exportedAt
        exportedBy = export.exportedBy
    }
}
