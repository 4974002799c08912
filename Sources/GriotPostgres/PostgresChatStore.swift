import Foundation
import GriotStore
import Logging
import PostgresNIO

/// Threads, messages, turns, courses and profiles in a PostgreSQL database that several service
/// nodes share: the same tables and the same behaviour, method by method, as `SQLiteChatStore`.
/// What SQLite does in one `writer.write` is one transaction here; where SQLite relies on its
/// single writer (two appends taking the same sequence, two edits passing the same `If-Match`),
/// the rows in question are locked for the transaction, a thread's row before its messages'
/// (`FOR NO KEY UPDATE`, which foreign key checks pass), so that two writers never wait on
/// each other in a circle.
///
/// ```swift
/// let chats = PostgresChatStore(database: try await PostgresDatabase.open(url: url), pseudonyms: pseudonyms)
/// let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth")
/// try await chats.appendMessage(threadID: thread.id, role: .user, content: "Who was Aunt Lil?")
/// ```
public final class PostgresChatStore: ChatStore {
    public let database: PostgresDatabase
    /// The keys of the abuse limits that outlive an erasure (warning counts; see `UserPseudonyms`).
    public let pseudonyms: UserPseudonyms
    /// Seals the conversations' text (the identity when no master key is configured).
    public let cipher: FieldCipher
    /// The data keys in `dataKey`, made, read and shredded for `cipher`.
    let keys: PostgresDataKeys
    /// Whose data key seals a row's text, remembered (see `RowOwners`).
    let owners = RowOwners()

    public init(database: PostgresDatabase, pseudonyms: UserPseudonyms, cipher: FieldCipher = .plaintext) {
        self.database = database
        self.pseudonyms = pseudonyms
        self.cipher = cipher
        self.keys = PostgresDataKeys(database: database, cipher: cipher)
    }

    // MARK: Threads

    /// Inserts a new thread (an id already taken is the database's unique-key error, as in SQLite).
    public func createThread(assistant: String, userID: String, courseID: String? = nil, title: String = "", id: String = UUID().uuidString.lowercased(),
                             now: Date = Date()) async throws -> ThreadRecord {
        let thread = ThreadRecord(id: id, assistant: assistant, userID: userID, courseID: courseID, title: title,
                                  createdAt: now, updatedAt: now, lastReadMessageID: nil, deletedAt: nil)
        let sealedTitle = try await keys.seal(title, .threadTitle, row: id, scope: .user(userID))
        try await rows("""
            INSERT INTO thread (id, assistant, userid, courseid, title, createdat, updatedat)
            VALUES (\(id), \(assistant), \(userID), \(courseID), \(sealedTitle), \(now.millisecondRounded), \(now.millisecondRounded))
            """)
        owners.remember(userID, of: .thread(id))
        return thread
    }

    /// The thread of this user for this course, created on first use (once, even when two
    /// requests race: the unique index decides and the loser reads the winner's thread).
    public func courseThread(assistant: String, userID: String, courseID: String, title: String = "") async throws -> ThreadRecord {
        let find = { () async throws -> ThreadRecord? in
            try await self.rows("""
                SELECT * FROM thread WHERE userid = \(userID) AND courseid = \(courseID) AND assistant = \(assistant) AND deletedat IS NULL LIMIT 1
                """).first.asyncFlatMap { try await self.opened(ThreadRecord($0)) }
        }
        if let thread = try await find() { return thread }
        do {
            return try await createThread(assistant: assistant, userID: userID, courseID: courseID, title: title)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == Self.uniqueViolation {
            guard let thread = try await find() else { throw error }
            return thread
        }
    }

    /// Names an untitled thread after a message, as a chat list and an export's header show it.
    /// Called only for text the input moderation allowed (`MessageGate`), never when a message
    /// is stored: a blocked or crisis message must not become the name on a list or a PDF.
    public func nameThread(id: String, from text: String) async throws {
        let title = String(text.trimmingCharacters(in: .whitespacesAndNewlines).prefix(ThreadRecord.titleLength))
        guard !title.isEmpty else { return }
        // An empty title is stored as it is, so "untitled" is still a plain comparison.
        let sealed = try await keys.seal(title, .threadTitle, row: id, scope: .user(owner(ofThread: id) ?? ""))
        try await rows("UPDATE thread SET title = \(sealed) WHERE id = \(id) AND title = ''")
    }

    /// A thread that has not been deleted.
    public func thread(id: String) async throws -> ThreadRecord? {
        try await rows("SELECT * FROM thread WHERE id = \(id) AND deletedat IS NULL").first.asyncFlatMap { try await opened(ThreadRecord($0)) }
    }

    public func threads(userID: String, assistant: String) async throws -> [ThreadRecord] {
        try await opened(rows("""
            SELECT * FROM thread WHERE userid = \(userID) AND assistant = \(assistant) AND deletedat IS NULL ORDER BY updatedat DESC
            """).map { try ThreadRecord($0) }, opened)
    }

    // MARK: Messages

    /// Appends a message at the end of its thread, touches the thread and logs `message.create`.
    /// `audit` (or the request's `AuditContext.current`) says who sent it and from where;
    /// `moderation` is the safety stages' verdict on it, as JSON. The thread's row is locked
    /// first, so two appends to one thread take turns and never the same sequence.
    @discardableResult
    public func appendMessage(threadID: String, role: MessageRecord.Role, content: String, status: MessageStatus = .complete,
                              turnID: String? = nil, now: Date = Date(), moderation: String? = nil, audit: AuditContext? = nil,
                              inputMode: String? = nil) async throws -> MessageRecord {
        if let reason = StorableText.unstorableReason(content, what: "message") { throw ChatStoreError(.invalid, reason) }
        let context = audit ?? AuditContext.current
        if let owner = try await owner(ofThread: threadID) { try await prepareKeys([.user(owner)]) }
        return try await transaction { connection in
            let owner = try await Self.scalar(String.self, Self.rows("SELECT userid FROM thread WHERE id = \(threadID) FOR NO KEY UPDATE", on: connection))
            // Archived messages keep their places: a new message goes after them too.
            let last = try await Self.scalar(Int.self, Self.rows("""
                SELECT GREATEST((SELECT MAX(sequence) FROM message WHERE threadid = \(threadID)),
                                (SELECT MAX(sequence) FROM archivedmessage WHERE threadid = \(threadID)))
                """, on: connection)) ?? 0
            let message = MessageRecord(id: UUID().uuidString.lowercased(), threadID: threadID, sequence: last + 1, role: role,
                                        content: content, status: status, turnID: turnID, error: nil,
                                        createdAt: now, updatedAt: now, deletedAt: nil, version: 1)
            let sealed = try await keys.seal(content, .messageContent, row: message.id, scope: .user(owner ?? ""))
            try await Self.rows("""
                INSERT INTO message (id, threadid, sequence, role, content, status, turnid, error, createdat, updatedat, deletedat, version, inputmode)
                VALUES (\(message.id), \(threadID), \(message.sequence), \(role.rawValue), \(sealed), \(status.rawValue), \(turnID), NULL,
                        \(now.millisecondRounded), \(now.millisecondRounded), NULL, 1, \(inputMode ?? "text"))
                """, on: connection)
            try await Self.rows("UPDATE thread SET updatedat = \(now.millisecondRounded) WHERE id = \(threadID)", on: connection)
            if let owner { owners.remember(owner, of: .message(message.id)) }
            try await insert(AuditEntry(at: now, action: .messageCreate, userID: owner, actorID: context?.actorID ?? (role == .user ? owner : nil),
                                             threadID: threadID, messageID: message.id, ipHash: context?.ipHash, moderation: moderation,
                                             details: AuditEntry.details(["role": .string(role.rawValue), "status": .string(status.rawValue),
                                                                          "input": .string(inputMode ?? "text")])), on: connection)
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
        let owner = try await owners(ofMessages: [id])[id] ?? ""
        let sealedContent = try await keys.seal(content, .messageContent, row: id, scope: .user(owner))
        let sealedError = try await keys.seal(error, .messageError, row: id, scope: .user(owner))
        try await transaction { connection in
            let updated = try await Self.rows("""
                WITH updated AS (
                    UPDATE message SET content = \(sealedContent), status = \(status.rawValue), error = \(sealedError), updatedat = \(now.millisecondRounded),
                                       version = version + 1
                    WHERE id = \(id) RETURNING threadid, version)
                SELECT updated.threadid, updated.version, thread.userid FROM updated JOIN thread ON thread.id = updated.threadid
                """, on: connection)
            guard status != .streaming, let row = updated.first?.makeRandomAccess() else { return }
            try await insert(AuditEntry(at: now, action: .messageUpdate, userID: row["userid"].decode(String.self), actorID: context?.actorID,
                                             threadID: row["threadid"].decode(String.self), messageID: id, ipHash: context?.ipHash, moderation: moderation,
                                             details: AuditEntry.details(["reason": "reply", "status": .string(status.rawValue),
                                                                          "version": .int(row["version"].decode(Int.self))])), on: connection)
        }
    }

    /// Stores the text so far of several streaming replies in one transaction (one commit for
    /// the whole batch, however many replies stream). Only replies still `streaming` change: a
    /// reply that has ended keeps its final text.
    public func saveStreamingTexts(_ texts: [(id: String, content: String)], now: Date = Date()) async throws {
        guard !texts.isEmpty else { return }
        // In the order of their ids (a repeated id keeping its place), so that two batches lock
        // their rows in the same order.
        let ordered = texts.enumerated().sorted { ($0.element.id, $0.offset) < ($1.element.id, $1.offset) }.map(\.element)
        // Sealed before the transaction opens: one owner look-up for the batch, at most.
        let ownerOf = try await owners(ofMessages: ordered.map(\.id))
        var sealed: [(id: String, content: String)] = []
        for text in ordered {
            sealed.append((text.id, try await keys.seal(text.content, .messageContent, row: text.id, scope: .user(ownerOf[text.id] ?? ""))))
        }
        try await transaction { connection in
            for text in sealed {
                try await Self.rows("""
                    UPDATE message SET content = \(text.content), updatedat = \(now.millisecondRounded), version = version + 1
                    WHERE id = \(text.id) AND status = 'streaming'
                    """, on: connection)
            }
        }
    }

    /// A message that has not been deleted (or, with `includingDeleted`, one that was deleted
    /// but not yet purged, for an admin). Archived messages are in `archivedMessages(threadID:)`.
    public func message(id: String, includingDeleted: Bool = false) async throws -> MessageRecord? {
        try await rows("SELECT * FROM message WHERE id = \(id) AND (\(includingDeleted) OR deletedat IS NULL)")
            .first.asyncFlatMap { try await opened(MessageRecord($0)) }
    }

    /// The last `limit` messages of a thread that are not deleted, oldest first.
    public func recentMessages(threadID: String, limit: Int, beforeSequence: Int? = nil) async throws -> [MessageRecord] {
        // A negative limit is no limit, as in SQLite.
        try await opened(Array(rows("""
            SELECT * FROM message WHERE threadid = \(threadID) AND deletedat IS NULL
                                    AND (\(beforeSequence)::bigint IS NULL OR sequence < \(beforeSequence))
            ORDER BY sequence DESC LIMIT \(limit < 0 ? nil : limit)
            """).map { try MessageRecord($0) }.reversed()), opened)
    }

    // MARK: Turns

    /// Inserts the turn, or replaces the one with its id.
    public func saveTurn(_ turn: TurnRecord) async throws {
        let owner = try await owner(ofThread: turn.threadID) ?? ""
        let snapshot = try await keys.seal(turn.snapshot, .turnSnapshot, row: turn.id, scope: .user(owner))
        try await rows("""
            INSERT INTO turn (id, threadid, usermessageid, assistantmessageid, assistant, promptversion, prompthash, provider, model, status,
                              startedat, finishedat, snapshot)
            VALUES (\(turn.id), \(turn.threadID), \(turn.userMessageID), \(turn.assistantMessageID), \(turn.assistant), \(turn.promptVersion),
                    \(turn.promptHash), \(turn.provider), \(turn.model), \(turn.status.rawValue), \(turn.startedAt.millisecondRounded),
                    \(turn.finishedAt.map(\.millisecondRounded)), \(snapshot))
            ON CONFLICT (id) DO UPDATE SET
                threadid = excluded.threadid, usermessageid = excluded.usermessageid, assistantmessageid = excluded.assistantmessageid,
                assistant = excluded.assistant, promptversion = excluded.promptversion, prompthash = excluded.prompthash,
                provider = excluded.provider, model = excluded.model, status = excluded.status, startedat = excluded.startedat,
                finishedat = excluded.finishedat, snapshot = excluded.snapshot
            """)
    }

    /// A turn, unless its reply was deleted: the snapshot copies the reply's text, so it hides
    /// with the reply (`includingDeleted` shows it to an admin until the purge removes it).
    public func turn(id: String, includingDeleted: Bool = false) async throws -> TurnRecord? {
        try await rows("SELECT * FROM turn WHERE id = \(id) AND (\(includingDeleted) OR \(unescaped: Self.replyNotDeleted))")
            .first.asyncFlatMap { try await opened(TurnRecord($0)) }
    }

    /// A thread's turns in the order they started, leaving out those whose reply was deleted.
    public func turns(threadID: String, includingDeleted: Bool = false) async throws -> [TurnRecord] {
        try await opened(rows("""
            SELECT * FROM turn WHERE threadid = \(threadID) AND (\(includingDeleted) OR \(unescaped: Self.replyNotDeleted)) ORDER BY startedat
            """).map { try TurnRecord($0) }, opened)
    }

    /// The condition on `turn` that its reply was not deleted (a fixed fragment, no values).
    static let replyNotDeleted = "NOT EXISTS (SELECT 1 FROM message WHERE message.id = turn.assistantmessageid AND message.deletedat IS NOT NULL)"

    // MARK: Courses and profiles

    public func saveCourse(_ course: CourseRecord) async throws {
        // PostgreSQL refuses a NUL in text with a bare encoding error (a 500 at the course route):
        // refuse it as invalid, saying which text and what to do, as a message's NUL is.
        try StorableText.refuseUnstorable([(course.id, "course id"), (course.title, "course title"), (course.summary, "course summary"),
                                   (course.customInstructions, "course's instructions")])
        try await rows("""
            INSERT INTO course (id, title, summary, custominstructions, updatedat)
            VALUES (\(course.id), \(course.title), \(course.summary), \(course.customInstructions), \(course.updatedAt.millisecondRounded))
            ON CONFLICT (id) DO UPDATE SET title = excluded.title, summary = excluded.summary,
                                           custominstructions = excluded.custominstructions, updatedat = excluded.updatedat
            """)
    }

    public func course(id: String) async throws -> CourseRecord? {
        try await rows("SELECT * FROM course WHERE id = \(id)").first.map { try CourseRecord($0) }
    }

    public func saveProfile(_ profile: ProfileRecord) async throws {
        try StorableText.refuseUnstorable([(profile.userID, "user id"), (profile.displayName ?? "", "display name"), (profile.bio, "profile's bio")])
        try await rows("""
            INSERT INTO profile (userid, displayname, bio, updatedat)
            VALUES (\(profile.userID), \(profile.displayName), \(profile.bio), \(profile.updatedAt.millisecondRounded))
            ON CONFLICT (userid) DO UPDATE SET displayname = excluded.displayname, bio = excluded.bio, updatedat = excluded.updatedat
            """)
    }

    public func profile(userID: String) async throws -> ProfileRecord? {
        try await rows("SELECT * FROM profile WHERE userid = \(userID)").first.map { try ProfileRecord($0) }
    }
}

// MARK: Running queries

extension PostgresChatStore {
    /// SQLSTATE of a unique index refusing a row: in `courseThread`, the other request won.
    static let uniqueViolation = "23505"

    /// For the statements run inside a transaction (postgres-nio logs at debug level only).
    static let logger = Logger(label: "griot.postgres.chats")

    /// Runs `body` in one transaction (see `PostgresDatabase.transaction`): a `ChatStoreError`
    /// thrown inside rolls it back and reaches the caller as it is.
    func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await database.transaction(body)
    }

    /// Runs one statement on a pooled connection, outside a transaction, and reads all its rows.
    @discardableResult
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await PostgresDatabase.carriedThrough { [database] in try await database.client.query(query, logger: database.logger).collect() }
    }

    /// Runs one statement inside a transaction and reads all its rows (so that its errors are
    /// thrown here, not later).
    @discardableResult
    static func rows(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> [PostgresRow] {
        try await connection.query(query, logger: logger).collect()
    }

    /// The first column of the first row, or nil when there is no row (or it holds NULL).
    static func scalar<Value: PostgresDecodable>(_ type: Value.Type, _ rows: [PostgresRow]) throws -> Value? {
        guard let cell = rows.first?.makeRandomAccess()[0], cell.bytes != nil else { return nil }
        return try cell.decode(Value.self)
    }
}
