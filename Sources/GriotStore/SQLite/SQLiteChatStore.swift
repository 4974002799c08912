import Foundation
import GRDB

/// Threads, messages, turns, courses and profiles, in the same SQLite file as the stories.
///
/// ```swift
/// let chats = try ChatStore(writer: storyStore.writer)
/// let thread = try chats.createThread(assistant: "griot", userID: "u-ruth")
/// let question = try chats.appendMessage(threadID: thread.id, role: .user, content: "Who was Aunt Lil?")
/// ```
public final class SQLiteChatStore: ChatStore {
    public let writer: any DatabaseWriter
    /// The keys of the abuse limits that outlive an erasure (warning counts; see `UserPseudonyms`).
    public let pseudonyms: UserPseudonyms
    /// Seals the conversations' text (the identity when no master key is configured).
    public let cipher: FieldCipher

    public init(writer: any DatabaseWriter, pseudonyms: UserPseudonyms? = nil, cipher: FieldCipher = .plaintext) throws {
        self.writer = writer
        self.cipher = cipher
        self.pseudonyms = try pseudonyms ?? .forDatabase(writer)
        try SQLiteSchema.migrator.migrate(writer)
        try writer.read { db in try cipher.checkOpens(db: db) }
    }

    // MARK: Threads

    public func createThread(assistant: String, userID: String, courseID: String? = nil, title: String = "", id: String = UUID().uuidString.lowercased(),
                             now: Date = Date()) async throws -> ThreadRecord {
        let thread = ThreadRecord(id: id, assistant: assistant, userID: userID, courseID: courseID, title: title,
                                  createdAt: now, updatedAt: now, lastReadMessageID: nil, deletedAt: nil)
        let cipher = self.cipher
        try await writer.commit { db in try thread.sealed(cipher, db).insert(db) }
        return thread
    }

    /// The thread of this user for this course, created on first use (once, even when two
    /// requests race: the unique index decides and the loser reads the winner's thread).
    public func courseThread(assistant: String, userID: String, courseID: String, title: String = "") async throws -> ThreadRecord {
        let cipher = self.cipher
        let find = { (db: Database) in
            try ThreadRecord.filter(Column("userID") == userID && Column("courseID") == courseID
                                    && Column("assistant") == assistant && Column("deletedAt") == nil).fetchOne(db)?.opened(cipher, db)
        }
        if let thread = try writer.read(find) { return thread }
        do {
            return try await createThread(assistant: assistant, userID: userID, courseID: courseID, title: title)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            guard let thread = try writer.read(find) else { throw error }
            return thread
        }
    }

    /// Names an untitled thread after a message, as a chat list and an export's header show it.
    /// Called only for text the input moderation allowed (`MessageGate`), never when a message
    /// is stored: a blocked or crisis message must not become the name on a list or a PDF.
    public func nameThread(id: String, from text: String) async throws {
        let title = String(text.trimmingCharacters(in: .whitespacesAndNewlines).prefix(ThreadRecord.titleLength))
        guard !title.isEmpty else { return }
        let cipher = self.cipher
        try await writer.commit { db in
            guard let owner = try Self.owner(of: id, db) else { return }
            try db.execute(sql: "UPDATE thread SET title = ? WHERE id = ? AND title = ''",
                           arguments: [try cipher.seal(title, .threadTitle, row: id, scope: .user(owner), db: db), id])
        }
    }

    /// A thread that has not been deleted.
    public func thread(id: String) async throws -> ThreadRecord? {
        try await writer.read { db in try ThreadRecord.filter(key: id).filter(Column("deletedAt") == nil).fetchOne(db)?.opened(cipher, db) }
    }

    public func threads(userID: String, assistant: String) async throws -> [ThreadRecord] {
        try await writer.read { db in
            try ThreadRecord.filter(Column("userID") == userID && Column("assistant") == assistant && Column("deletedAt") == nil)
                .order(Column("updatedAt").desc).fetchAll(db).map { try $0.opened(cipher, db) }
        }
    }

    // MARK: Messages

    /// Appends a message at the end of its thread, touches the thread and logs `message.create`.
    /// `audit` (or the request's `AuditContext.current`) says who sent it and from where;
    /// `moderation` is the safety stages' verdict on it, as JSON.
    @discardableResult
    public func appendMessage(threadID: String, role: MessageRecord.Role, content: String, status: MessageStatus = .complete,
                              turnID: String? = nil, now: Date = Date(), moderation: String? = nil, audit: AuditContext? = nil,
                              inputMode: String? = nil) async throws -> MessageRecord {
        if let reason = StorableText.unstorableReason(content, what: "message") { throw ChatStoreError(.invalid, reason) }
        let context = audit ?? AuditContext.current
        let cipher = self.cipher
        return try await writer.commit { db in
            // Archived messages keep their places: a new message goes after them too.
            let last = try Int.fetchOne(db, sql: """
                SELECT MAX(last) FROM (SELECT MAX(sequence) AS last FROM message WHERE threadID = ?1
                                       UNION ALL SELECT MAX(sequence) FROM archivedMessage WHERE threadID = ?1)
                """, arguments: [threadID]) ?? 0
            let message = MessageRecord(id: UUID().uuidString.lowercased(), threadID: threadID, sequence: last + 1, role: role,
                                        content: content, status: status, turnID: turnID, error: nil,
                                        createdAt: now, updatedAt: now, deletedAt: nil, version: 1)
            let owner = try Self.owner(of: threadID, db)
            var stored = message
            stored.content = try cipher.seal(content, .messageContent, row: message.id, scope: .user(owner ?? ""), db: db)
            try stored.insert(db)
            if let inputMode {
                try db.execute(sql: "UPDATE message SET inputMode = ? WHERE id = ?", arguments: [inputMode, message.id])
            }
            try db.execute(sql: "UPDATE thread SET updatedAt = ? WHERE id = ?", arguments: [now, threadID])
            var entry = AuditEntry(at: now, action: .messageCreate, userID: owner, actorID: context?.actorID ?? (role == .user ? owner : nil),
                                   threadID: threadID, messageID: message.id, ipHash: context?.ipHash, moderation: moderation,
                                   details: AuditEntry.details(["role": .string(role.rawValue), "status": .string(status.rawValue),
                                                                "input": .string(inputMode ?? "text")]))
            try entry.insert(sealedBy: cipher, db)
            return message
        }
    }

    /// Records a reply's text and where it ended. Each call moves the message to a new version
    /// (its ETag changes with its text); the last one, which leaves `streaming`, logs
    /// `message.update`. The flushes while a reply streams are not logged: they are one reply
    /// being written, and would fill the log with a row every half second.
    public func finishMessage(id: String, content: String, status: MessageStatus, error: String? = nil, now: Date = Date(),
                              moderation: String? = nil) async throws {
        let context = AuditContext.current
        let cipher = self.cipher
        try await writer.commit { db in
            let owner = cipher.isEnabled ? try Self.owner(ofMessage: id, db) ?? "" : ""
            try db.execute(sql: "UPDATE message SET content = ?, status = ?, error = ?, updatedAt = ?, version = version + 1 WHERE id = ?",
                           arguments: [try cipher.seal(content, .messageContent, row: id, scope: .user(owner), db: db), status,
                                       try cipher.seal(error, .messageError, row: id, scope: .user(owner), db: db), now, id])
            guard status != .streaming, db.changesCount > 0,
                  let row = try Row.fetchOne(db, sql: """
                      SELECT message.threadID, message.version, thread.userID FROM message JOIN thread ON thread.id = message.threadID
                      WHERE message.id = ?
                      """, arguments: [id])
            else { return }
            var entry = AuditEntry(at: now, action: .messageUpdate, userID: row["userID"], actorID: context?.actorID, threadID: row["threadID"],
                                   messageID: id, ipHash: context?.ipHash, moderation: moderation,
                                   details: AuditEntry.details(["reason": "reply", "status": .string(status.rawValue), "version": .int(row["version"])]))
            try entry.insert(sealedBy: cipher, db)
        }
    }

    /// Stores the text so far of several streaming replies in one transaction (one commit for
    /// the whole batch, however many replies stream). Only replies still `streaming` change: a
    /// reply that has ended keeps its final text.
    public func saveStreamingTexts(_ texts: [(id: String, content: String)], now: Date = Date()) async throws {
        guard !texts.isEmpty else { return }
        let cipher = self.cipher
        try await writer.commit { db in
            // One owner lookup for the whole batch, and none without a master key.
            let owners = cipher.isEnabled ? try Self.owners(ofMessages: texts.map(\.id), db) : [:]
            let statement = try db.cachedStatement(sql: """
                UPDATE message SET content = ?, updatedAt = ?, version = version + 1 WHERE id = ? AND status = 'streaming'
                """)
            for text in texts {
                let content = try cipher.seal(text.content, .messageContent, row: text.id, scope: .user(owners[text.id] ?? ""), db: db)
                try statement.execute(arguments: [content, now, text.id])
            }
        }
    }

    /// A message that has not been deleted (or, with `includingDeleted`, one that was deleted
    /// but not yet purged, for an admin). Archived messages are in `archivedMessages(threadID:)`.
    public func message(id: String, includingDeleted: Bool = false) async throws -> MessageRecord? {
        try await writer.read { db in
            var request = MessageRecord.filter(key: id)
            if !includingDeleted { request = request.filter(Column("deletedAt") == nil) }
            return try request.fetchOne(db)?.opened(cipher, db)
        }
    }

    /// The last `limit` messages of a thread that are not deleted, oldest first.
    public func recentMessages(threadID: String, limit: Int, beforeSequence: Int? = nil) async throws -> [MessageRecord] {
        try await writer.read { db in
            var request = MessageRecord.filter(Column("threadID") == threadID && Column("deletedAt") == nil)
            if let beforeSequence { request = request.filter(Column("sequence") < beforeSequence) }
            return try request.order(Column("sequence").desc).limit(limit).fetchAll(db).reversed().map { try $0.opened(cipher, db) }
        }
    }

    // MARK: Turns

    public func saveTurn(_ turn: TurnRecord) async throws {
        let cipher = self.cipher
        try await writer.commit { db in
            let owner = cipher.isEnabled ? try Self.owner(of: turn.threadID, db) ?? "" : ""
            try turn.sealed(cipher, owner: owner, db).save(db)
        }
    }

    /// A turn, unless its reply was deleted: the snapshot copies the reply's text, so it hides
    /// with the reply (`includingDeleted` shows it to an admin until the purge removes it).
    public func turn(id: String, includingDeleted: Bool = false) async throws -> TurnRecord? {
        try await writer.read { db in try Self.turns(includingDeleted: includingDeleted).filter(key: id).fetchOne(db)?.opened(cipher, db) }
    }

    /// A thread's turns in the order they started, leaving out those whose reply was deleted.
    public func turns(threadID: String, includingDeleted: Bool = false) async throws -> [TurnRecord] {
        try await writer.read { db in
            try Self.turns(includingDeleted: includingDeleted).filter(Column("threadID") == threadID).order(Column("startedAt")).fetchAll(db)
                .map { try $0.opened(cipher, db) }
        }
    }

    static func turns(includingDeleted: Bool) -> QueryInterfaceRequest<TurnRecord> {
        if includingDeleted { return TurnRecord.all() }
        return TurnRecord.filter(sql: "NOT EXISTS (SELECT 1 FROM message WHERE message.id = turn.assistantMessageID AND message.deletedAt IS NOT NULL)")
    }

    // MARK: Courses and profiles

    public func saveCourse(_ course: CourseRecord) async throws {
        try StorableText.refuseUnstorable([(course.id, "course id"), (course.title, "course title"), (course.summary, "course summary"),
                                           (course.customInstructions, "course's instructions")])
        try await writer.commit { db in try course.save(db) }
    }

    public func course(id: String) async throws -> CourseRecord? {
        try await writer.read { db in try CourseRecord.fetchOne(db, key: id) }
    }

    public func saveProfile(_ profile: ProfileRecord) async throws {
        try StorableText.refuseUnstorable([(profile.userID, "user id"), (profile.displayName ?? "", "display name"), (profile.bio, "profile's bio")])
        try await writer.commit { db in try profile.save(db) }
    }

    public func profile(userID: String) async throws -> ProfileRecord? {
        try await writer.read { db in try ProfileRecord.fetchOne(db, key: userID) }
    }

    // MARK: Rate limits

    public func rateLimiter(_ limits: [RateLimit]) throws -> any RateLimiter {
        try SQLiteRateLimiter(writer: writer, limits: limits, pseudonyms: pseudonyms)
    }

    // MARK: Scheduled jobs

    /// One file has one writer at a time already, and its jobs are idempotent: the job runs.
    public func runExclusively(_ job: String, _ body: @Sendable () async throws -> Void) async throws -> Bool {
        try await body()
        return true
    }
}
