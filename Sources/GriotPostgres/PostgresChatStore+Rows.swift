import Foundation
import GriotStore
import PostgresNIO

/// Rows into the store's records, column by column through each record's public initializer,
/// so a record and its table stay one to one, as GRDB keeps them. Columns are named in lower
/// case (PostgreSQL folds the schema's unquoted names), and dates come back rounded to the
/// millisecond, as they were stored.
extension ThreadRecord {
    /// A `thread` row (`SELECT *`).
    init(_ row: PostgresRow) throws {
        let columns = RowColumns(row)
        try self.init(id: columns["id"], assistant: columns["assistant"], userID: columns["userid"], courseID: columns["courseid"],
                      title: columns["title"], createdAt: columns.date("createdat"), updatedAt: columns.date("updatedat"),
                      lastReadMessageID: columns["lastreadmessageid"], deletedAt: columns.date("deletedat"))
    }
}

extension MessageRecord {
    /// A `message` row (`SELECT *`).
    init(_ row: PostgresRow) throws {
        let columns = RowColumns(row)
        try self.init(id: columns["id"], threadID: columns["threadid"], sequence: columns["sequence"], role: columns.raw("role"),
                      content: columns["content"], status: columns.raw("status"), turnID: columns["turnid"], error: columns["error"],
                      createdAt: columns.date("createdat"), updatedAt: columns.date("updatedat"), deletedAt: columns.date("deletedat"),
                      version: columns["version"])
    }
}

extension ArchivedMessageRecord {
    /// An `archivedmessage` row (`SELECT *`).
    init(_ row: PostgresRow) throws {
        let columns = RowColumns(row)
        try self.init(id: columns["id"], threadID: columns["threadid"], sequence: columns["sequence"], role: columns.raw("role"),
                      content: columns["content"], status: columns.raw("status"), turnID: columns["turnid"], error: columns["error"],
                      createdAt: columns.date("createdat"), updatedAt: columns.date("updatedat"), version: columns["version"],
                      archivedAt: columns.date("archivedat"))
    }
}

extension TurnRecord {
    /// A `turn` row (`SELECT *`).
    init(_ row: PostgresRow) throws {
        let columns = RowColumns(row)
        try self.init(id: columns["id"], threadID: columns["threadid"], userMessageID: columns["usermessageid"],
                      assistantMessageID: columns["assistantmessageid"], assistant: columns["assistant"], promptVersion: columns["promptversion"],
                      promptHash: columns["prompthash"], provider: columns["provider"], model: columns["model"], status: columns.raw("status"),
                      startedAt: columns.date("startedat"), finishedAt: columns.date("finishedat"), snapshot: columns["snapshot"])
    }
}

extension CourseRecord {
    /// A `course` row (`SELECT *`).
    init(_ row: PostgresRow) throws {
        let columns = RowColumns(row)
        try self.init(id: columns["id"], title: columns["title"], summary: columns["summary"], customInstructions: columns["custominstructions"],
                      updatedAt: columns.date("updatedat"))
    }
}

extension ProfileRecord {
    /// A `profile` row (`SELECT *`).
    init(_ row: PostgresRow) throws {
        let columns = RowColumns(row)
        try self.init(userID: columns["userid"], displayName: columns["displayname"], bio: columns["bio"], updatedAt: columns.date("updatedat"))
    }
}

extension AuditEntry {
    /// An `auditentry` row (`SELECT *`).
    init(_ row: PostgresRow) throws {
        let columns = RowColumns(row)
        try self.init(id: columns["id"], at: columns.date("at"), action: AuditAction(rawValue: columns["action"]), userID: columns["userid"],
                      actorID: columns["actorid"], threadID: columns["threadid"], messageID: columns["messageid"], ipHash: columns["iphash"],
                      moderation: columns["moderation"], details: columns["details"])
    }
}

extension SafetyVerdictRecord {
    /// A `safetyverdict` row (`SELECT *`).
    init(_ row: PostgresRow) throws {
        let columns = RowColumns(row)
        try self.init(id: columns["id"], at: columns.date("at"), turnID: columns["turnid"], threadID: columns["threadid"],
                      messageID: columns["messageid"], userID: columns["userid"], ipHash: columns["iphash"], stage: columns["stage"],
                      score: columns["score"], decision: columns["decision"], reason: columns["reason"], details: columns["details"])
    }
}

extension RetainedText {
    /// A `retainedtext` row (`SELECT *`).
    init(_ row: PostgresRow) throws {
        let columns = RowColumns(row)
        try self.init(id: columns["id"], messageID: columns["messageid"], threadID: columns["threadid"], userID: columns["userid"],
                      role: columns.raw("role"), reason: columns.raw("reason"), version: columns["version"], content: columns["content"],
                      keptAt: columns.date("keptat"), purgeAfter: columns.date("purgeafter"))
    }
}

extension SupportGrant {
    /// A `supportgrant` row (`SELECT *`). Its story list is stored as `SupportGrant` writes it,
    /// a JSON array or NULL for all stories; a list that does not read back is an error, never
    /// a grant to every story.
    init(_ row: PostgresRow) throws {
        let columns = RowColumns(row)
        let storyIDs: String? = try columns["storyids"]
        try self.init(id: columns["id"], ownerUserID: columns["owneruserid"],
                      stories: storyIDs.map { try JSONDecoder().decode([String].self, from: Data($0.utf8)) },
                      createdAt: columns.date("createdat"), expiresAt: columns.date("expiresat"), revokedAt: columns.date("revokedat"))
    }
}

/// A row's columns by name, read as the records' property types.
struct RowColumns {
    let row: PostgresRandomAccessRow

    init(_ row: PostgresRow) {
        self.row = row.makeRandomAccess()
    }

    /// A column's value (nil for NULL, when `Value` is optional).
    subscript<Value: PostgresDecodable>(_ column: String) -> Value {
        get throws {
            guard row.contains(column) else {
                throw PostgresDatabase.Failure("The row has no column \(column); select it, or check that the schema's migrations ran.")
            }
            return try row[column].decode(Value.self)
        }
    }

    /// A date, rounded to the millisecond as it was written (postgres-nio reads microseconds).
    func date(_ column: String) throws -> Date {
        try (self[column] as Date).millisecondRounded
    }

    func date(_ column: String) throws -> Date? {
        try (self[column] as Date?)?.millisecondRounded
    }

    /// An enum stored as its raw value (`MessageStatus`, a role, a reason).
    func raw<Value: RawRepresentable>(_ column: String) throws -> Value where Value.RawValue == String {
        let stored: String = try self[column]
        guard let value = Value(rawValue: stored) else {
            throw PostgresDatabase.Failure("The column \(column) holds \"\(stored)\", which is not a \(Value.self); the row was written by something other than Griot.")
        }
        return value
    }
}
