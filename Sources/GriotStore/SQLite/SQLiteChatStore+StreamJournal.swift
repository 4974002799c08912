import Foundation
import GRDB

extension SQLiteChatStore {
    public func writeStreams(_ batch: StreamJournalBatch) async throws {
        guard !batch.isEmpty else { return }
        try await writer.commit { db in
            for stream in batch.opened {
                try db.execute(sql: """
                    INSERT INTO turnStream (turnID, userID, threadID, replyMessageID, nodeID, startedAt)
                    VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(turnID) DO NOTHING
                    """, arguments: [stream.turnID, stream.userID, stream.threadID, stream.replyMessageID, stream.nodeID, stream.startedAt])
            }
            // One owner lookup per stream in the batch, and none without a master key.
            var owners: [String: String] = [:]
            for event in batch.events {
                if self.cipher.isEnabled, owners[event.turnID] == nil {
                    owners[event.turnID] = try String.fetchOne(db, sql: "SELECT userID FROM turnStream WHERE turnID = ?", arguments: [event.turnID]) ?? ""
                }
                let data = try self.cipher.seal(event.content.data, .streamEvent, row: FieldCipher.streamEventRow(turnID: event.turnID, number: event.number),
                                                scope: .user(owners[event.turnID] ?? ""), db: db)
                try db.execute(sql: "INSERT INTO turnStreamEvent (turnID, number, name, data) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                               arguments: [event.turnID, event.number, event.content.name, data])
            }
            for turnID in batch.finished {
                try db.execute(sql: "UPDATE turnStream SET finishedAt = ? WHERE turnID = ? AND finishedAt IS NULL", arguments: [batch.at, turnID])
            }
        }
    }

    public func stream(turnID: String) async throws -> TurnStreamRecord? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM turnStream WHERE turnID = ?", arguments: [turnID]).map(Self.streamRecord)
        }
    }

    public func streamEvents(turnID: String, after: Int, limit: Int) async throws -> [TurnStreamEvent] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT number, name, data FROM turnStreamEvent WHERE turnID = ? AND number > ? ORDER BY number LIMIT ?",
                             arguments: [turnID, after, limit])
                .map { row in
                    let number: Int = row["number"]
                    let data = try cipher.open(row["data"] as String, .streamEvent, row: FieldCipher.streamEventRow(turnID: turnID, number: number), db: db)
                    return TurnStreamEvent(turnID: turnID, number: number, content: StreamEventContent(name: row["name"], data: data))
                }
        }
    }

    public func markStreamListened(turnID: String, at: Date) async throws {
        try await writer.commit { db in
            try db.execute(sql: "UPDATE turnStream SET listenedAt = ? WHERE turnID = ?", arguments: [at, turnID])
        }
    }

    public func requestStreamStop(threadID: String, userID: String, at: Date) async throws -> Bool {
        try await writer.commit { db in
            try db.execute(sql: """
                UPDATE turnStream SET stopRequestedAt = ? WHERE threadID = ? AND userID = ? AND finishedAt IS NULL
                """, arguments: [at, threadID, userID])
            return db.changesCount > 0
        }
    }

    public func stopRequestedStreams(nodeID: String) async throws -> [String] {
        try await writer.read { db in
            try String.fetchAll(db, sql: """
                SELECT turnID FROM turnStream WHERE nodeID = ? AND finishedAt IS NULL AND stopRequestedAt IS NOT NULL
                """, arguments: [nodeID])
        }
    }

    public func beatHeart(nodeID: String, at: Date) async throws {
        try await writer.commit { db in
            try db.execute(sql: """
                INSERT INTO serviceNode (nodeID, heartbeatAt) VALUES (?, ?)
                ON CONFLICT(nodeID) DO UPDATE SET heartbeatAt = excluded.heartbeatAt
                """, arguments: [nodeID, at])
        }
    }

    public func lastHeartbeat(nodeID: String) async throws -> Date? {
        try await writer.read { db in
            try Date.fetchOne(db, sql: "SELECT heartbeatAt FROM serviceNode WHERE nodeID = ?", arguments: [nodeID])
        }
    }

    public func interruptStream(turnID: String, ending: [StreamEventContent], replyText: String, at: Date) async throws -> [TurnStreamEvent]? {
        try await writer.commit { db in
            guard let stream = try Row.fetchOne(db, sql: "SELECT replyMessageID, userID FROM turnStream WHERE turnID = ? AND finishedAt IS NULL",
                                                arguments: [turnID]) else { return nil }
            let replyID: String = stream["replyMessageID"]
            let streamOwner: String = stream["userID"]
            let replyOwner = self.cipher.isEnabled ? try Self.owner(ofMessage: replyID, db) ?? streamOwner : streamOwner
            let last = try Int.fetchOne(db, sql: "SELECT max(number) FROM turnStreamEvent WHERE turnID = ?", arguments: [turnID]) ?? 0
            let appended = ending.enumerated().map { TurnStreamEvent(turnID: turnID, number: last + 1 + $0.offset, content: $0.element) }
            for event in appended {
                let data = try self.cipher.seal(event.content.data, .streamEvent, row: FieldCipher.streamEventRow(turnID: turnID, number: event.number),
                                                scope: .user(streamOwner), db: db)
                try db.execute(sql: "INSERT INTO turnStreamEvent (turnID, number, name, data) VALUES (?, ?, ?, ?)",
                               arguments: [turnID, event.number, event.content.name, data])
            }
            try db.execute(sql: "UPDATE turnStream SET finishedAt = ? WHERE turnID = ?", arguments: [at, turnID])
            try db.execute(sql: "UPDATE turn SET status = 'interrupted', finishedAt = ? WHERE status = 'streaming' AND assistantMessageID = ?",
                           arguments: [at, replyID])
            try db.execute(sql: """
                UPDATE message SET status = 'interrupted', version = version + 1, content = ?, updatedAt = ?, error = ? WHERE status = 'streaming' AND id = ?
                """, arguments: [try self.cipher.seal(replyText, .messageContent, row: replyID, scope: .user(replyOwner), db: db), at,
                                 try self.cipher.seal(StreamInterruption.storedError, .messageError, row: replyID, scope: .user(replyOwner), db: db), replyID])
            return appended
        }
    }

    public func orphanedStreams(heartbeatBefore: Date) async throws -> [TurnStreamRecord] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT turnStream.* FROM turnStream LEFT JOIN serviceNode ON serviceNode.nodeID = turnStream.nodeID
                WHERE turnStream.finishedAt IS NULL
                AND ((serviceNode.heartbeatAt IS NULL AND turnStream.startedAt < ?) OR serviceNode.heartbeatAt < ?)
                """, arguments: [heartbeatBefore, heartbeatBefore]).map(Self.streamRecord)
        }
    }

    public func pruneStreams(finishedBefore: Date) async throws -> Int {
        try await writer.commit { db in
            try db.execute(sql: """
                DELETE FROM turnStreamEvent WHERE turnID IN (SELECT turnID FROM turnStream WHERE finishedAt IS NOT NULL AND finishedAt < ?)
                """, arguments: [finishedBefore])
            try db.execute(sql: "DELETE FROM turnStream WHERE finishedAt IS NOT NULL AND finishedAt < ?", arguments: [finishedBefore])
            return db.changesCount
        }
    }

    static func streamRecord(_ row: Row) -> TurnStreamRecord {
        TurnStreamRecord(turnID: row["turnID"], userID: row["userID"], threadID: row["threadID"], replyMessageID: row["replyMessageID"],
                         nodeID: row["nodeID"], startedAt: row["startedAt"], finishedAt: row["finishedAt"], listenedAt: row["listenedAt"])
    }
}
