import Foundation
import GriotStore

/// One coaching conversation, ready to hand to a coach or an administrator as JSON
/// (``json()``) or as a PDF marked "Confidential" on every page (``pdf(pageSize:)``).
///
/// The export holds the thread's messages that are not deleted, in their order in the thread
/// (by `sequence`). Replies that did not complete — stopped, failed, still streaming — are kept
/// and carry their status, since a coach reviewing a conversation needs to see them. A message
/// input moderation blocked keeps its place and its `blocked` status but never its text
/// (`content` is empty): what was refused is not handed on in a document made to be shared.
///
/// ```swift
/// let export = ThreadExport(thread: thread, messages: messages, courseTitle: "Oral History 101",
///                           exportedBy: "coach@example.edu", exportedAt: Date())
/// let json = try export.json()
/// let pdf = export.pdf()
/// ```
public struct ThreadExport: Sendable {
    public let thread: ThreadRecord
    /// The messages the export contains: those of `thread` not deleted, oldest first.
    public let messages: [MessageRecord]
    public let courseTitle: String?
    /// Who asked for the export (an email or user id), printed on every page and kept in the JSON.
    public let exportedBy: String
    public let exportedAt: Date

    /// Messages may come in any order; deleted ones, and any that belong to another thread,
    /// are left out, so a caller cannot leak another conversation into a confidential export.
    public init(thread: ThreadRecord, messages: [MessageRecord], courseTitle: String?, exportedBy: String, exportedAt: Date) {
        self.thread = thread
        self.messages = messages
            .filter { $0.deletedAt == nil && $0.threadID == thread.id }
            .sorted { ($0.sequence, $0.createdAt) < ($1.sequence, $1.createdAt) }
            .map { message in
                var shown = message
                if message.status == .blocked { shown.content = "" }
                return shown
            }
        self.courseTitle = courseTitle
        self.exportedBy = exportedBy
        self.exportedAt = exportedAt
    }
}
