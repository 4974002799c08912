import Foundation
@testable import GriotStore
import GriotExport

/// Threads and messages as the store would hand them over. `@testable` because the records'
/// memberwise initialisers are internal to GriotStore.
enum ExportFixtures {
    /// 2025-05-01T14:03:00Z.
    static let started = Date(timeIntervalSince1970: 1_746_108_180)
    /// 2025-05-02T09:00:00Z.
    static let exportedAt = Date(timeIntervalSince1970: 1_746_176_400)

    static func thread(id: String = "t-1", courseID: String? = "oral-history-101",
                       title: String = "Who was Aunt Lil?") -> ThreadRecord {
        ThreadRecord(id: id, assistant: "griot", userID: "u-ruth", courseID: courseID, title: title,
                     createdAt: started, updatedAt: started, lastReadMessageID: nil, deletedAt: nil)
    }

    static func message(_ sequence: Int, _ role: MessageRecord.Role, _ content: String, status: MessageStatus = .complete,
                        deleted: Bool = false, threadID: String = "t-1") -> MessageRecord {
        let createdAt = started.addingTimeInterval(Double(sequence) * 30)
        return MessageRecord(id: "m-\(sequence)", threadID: threadID, sequence: sequence, role: role, content: content,
                             status: status, turnID: nil, error: nil, createdAt: createdAt, updatedAt: createdAt,
                             deletedAt: deleted ? createdAt.addingTimeInterval(60) : nil, version: 1)
    }

    static func export(_ messages: [MessageRecord], thread: ThreadRecord = thread(),
                       courseTitle: String? = "Oral History 101") -> ThreadExport {
        ThreadExport(thread: thread, messages: messages, courseTitle: courseTitle,
                     exportedBy: "coach@example.edu", exportedAt: exportedAt)
    }

    /// A long conversation: `count` messages, questions and several-sentence answers in turn.
    static func longConversation(_ count: Int) -> [MessageRecord] {
        (1...count).map { sequence in
            sequence.isMultiple(of: 2)
                ? message(sequence, .assistant, "Aunt Lil ran the boarding house on Dumaine Street from 1931 until the flood. "
                          + "Her ledger, kept in the pantry, lists every lodger by first name and the week they paid. "
                          + "Reply number \(sequence) ends here.")
                : message(sequence, .user, "Question number \(sequence): what did the lodgers say about her?")
        }
    }
}
