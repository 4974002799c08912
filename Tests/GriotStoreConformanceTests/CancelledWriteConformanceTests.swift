import Foundation
import GriotStore
import Testing

/// A turn's final writes run in a task that was cancelled on purpose (the user pressed stop,
/// the reader closed the pipe, the client hung up): what they store must still be stored.
@Suite struct CancelledWriteConformanceTests {
    @Test("A write asked for by a cancelled task is still made: a stopped reply is stored, marked stopped",
          arguments: StoreBackend.allCases)
    func aCancelledTasksWriteIsCarriedThrough(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth")
            let reply = try await chats.appendMessage(threadID: thread.id, role: .assistant, content: "", status: .streaming)
            let stopped = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                #expect(Task.isCancelled)
                try await chats.finishMessage(id: reply.id, content: "Zofia Łukasiewicz rowed to", status: .stopped)
                try await chats.recordAudit(AuditEntry(action: "turn.stop", userID: "u-ruth", threadID: thread.id))
            }
            try await stopped.value
            let stored = try await chats.message(id: reply.id)
            #expect(stored?.status == .stopped && stored?.content == "Zofia Łukasiewicz rowed to")
            #expect(try await chats.auditEntries(AuditFilter(actions: ["turn.stop"])).count == 1)
        }
    }
}
