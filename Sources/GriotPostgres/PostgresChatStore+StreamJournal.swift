import Foundation
import GriotStore
import PostgresNIO

extension PostgresChatStore {
    /// One transaction, and one statement per kind of row however many streams wrote: with a
    /// thousand replies streaming, a batch is a handful of round trips, not thousands.
    public func writeStreams(_ batch: StreamJournalBatch) async throws {
        guard !batch.isEmpty else { return }
        let data = try await sealedData(of: batch)
        try await transaction { connection in
            if !batch.opened.isEmpty {
                let opened = batch.opened
                try await Self.rows("""
                    INSERT INTO turnStream (turnID, userID, threadID, replyMessageID, nodeID, startedAt)
                    SELECT * FROM unnest(\(opened.map(\.turnID))::text[], \(opened.map(\.userID))::text[], \(opened.map(\.threadID))::text[],
                                         \(opened.map(\.replyMessageID))::text[], \(opened.map(\.nodeID))::text[],
                                         \(opened.map(\.startedAt.millisecondRounded))::timestamptz[])
                    ON CONFLICT (turnID) DO NOTHING
                    """, on: connection)
            }
            if !batch.events.isEmpty {
                let events = batch.events
                try await Self.rows("""
                    INSERT INTO turnStreamEvent (turnID, number, name, data)
                    SELECT * FROM unnest(\(events.map(\.turnID))::text[], \(events.map(\.number))::integer[],
                                         \(events.map(\.content.name))::text[], \(data)::text[])
                    ON CONFLICT DO NOTHING
                    """, on: connection)
            }
            if !batch.finished.isEmpty {
                try await Self.rows("""
                    UPDATE turnStream SET finishedAt = \(batch.at.millisecondRounded) WHERE turnID = ANY(\(batch.finished)) AND finishedAt IS NULL
                    """, on: connection)
            }
        }
    }

    public func stream(turnID: String) async throws -> TurnStreamRecord? {
        try await rows("SELECT \(unescaped: Self.streamColumns(of: "turnStream")) FROM turnStream WHERE turnID = \(turnID)").first.map(Self.streamRecord)
    }

    public func streamEvents(turnID: String, after: Int, limit: Int) async throws -> [TurnStreamEvent] {
        var events: [TurnStreamEvent] = []
        for row in try await rows("""
            SELECT number, name, data FROM turnStreamEvent WHERE turnID = \(turnID) AND number > \(after) ORDER BY number LIMIT \(limit)
            """) {
            let (number, name, data) = try row.decode((Int, String, String).self)
            let text = try await keys.open(data, .streamEvent, row: Self.eventRow(turnID, number))
            events.append(TurnStreamEvent(turnID: turnID, number: number, content: StreamEventContent(name: name, data: text)))
        }
        return events
    }

    /// The authenticated row of an event's data: its stream and its number.
    static func eventRow(_ turnID: String, _ number: Int) -> String { "\(turnID)#\(number)" }

    /// The batch's events' data, in order, sealed with their streams' users' keys: the owners of
    /// streams opened earlier are read once for the batch (then remembered).
    private func sealedData(of batch: StreamJournalBatch) async throws -> [String] {
        guard cipher.isEnabled, !batch.events.isEmpty else { return batch.events.map(\.content.data) }
        for stream in batch.opened { owners.remember(stream.userID, of: .stream(stream.turnID)) }
        let missing = Array(Set(batch.events.map(\.turnID).filter { owners.owner(of: .stream($0)) == nil }))
        if !missing.isEmpty {
            for row in try await rows("SELECT turnID, userID FROM turnStream WHERE turnID = ANY(\(missing))") {
                let (turnID, userID) = try row.decode((String, String).self)
                owners.remember(userID, of: .stream(turnID))
            }
        }
        var sealed: [String] = []
        sealed.reserveCapacity(batch.events.count)
        for event in batch.events {
            let owner = owners.owner(of: .stream(event.turnID)) ?? ""
            sealed.append(try await keys.seal(event.content.data, .streamEvent, row: Self.eventRow(event.turnID, event.number), scope: .user(owner)))
        }
        return sealed
    }

    public func markStreamListened(turnID: String, at: Date) async throws {
        try await rows("UPDATE turnStream SET listenedAt = \(at.millisecondRounded) WHERE turnID = \(turnID)")
    }

    public func requestStreamStop(threadID: String, userID: String, at: Date) async throws -> Bool {
        try await !rows("""
            UPDATE turnStream SET stopRequestedAt = \(at.millisecondRounded)
            WHERE threadID = \(threadID) AND userID = \(userID) AND finishedAt IS NULL RETURNING turnID
            """).isEmpty
    }

    public func stopRequestedStreams(nodeID: String) async throws -> [String] {
        try await rows("""
            SELECT turnID FROM turnStream WHERE nodeID = \(nodeID) AND finishedAt IS NULL AND stopRequestedAt IS NOT NULL
            """).map { try $0.decode(String.self) }
    }

    public func beatHeart(nodeID: String, at: Date) async throws {
        try await rows("""
            INSERT INTO serviceNode (nodeID, heartbeatAt) VALUES (\(nodeID), \(at.millisecondRounded))
            ON CONFLICT (nodeID) DO UPDATE SET heartbeatAt = excluded.heartbeatAt
            """)
    }

    public func lastHeartbeat(nodeID: String) async throws -> Date? {
        try Self.scalar(Date.self, try await rows("SELECT heartbeatAt FROM serviceNode WHERE nodeID = \(nodeID)"))
    }

    /// The stream's row is locked first, so two nodes resuming it at once append one ending.
    public func interruptStream(turnID: String, ending: [StreamEventContent], replyText: String, at: Date) async throws -> [TurnStreamEvent]? {
        if cipher.isEnabled, let owner = try Self.scalar(String.self, await rows("SELECT userID FROM turnStream WHERE turnID = \(turnID)")) {
            try await prepareKeys([.user(owner)])
        }
        return try await transaction { connection in
            guard let stream = try await Self.rows("""
                SELECT replyMessageID, userID FROM turnStream WHERE turnID = \(turnID) AND finishedAt IS NULL FOR UPDATE
                """, on: connection).first else { return nil }
            let (replyID, owner) = try stream.decode((String, String).self)
            let last = try Self.scalar(Int.self, try await Self.rows("SELECT max(number) FROM turnStreamEvent WHERE turnID = \(turnID)", on: connection)) ?? 0
            let appended = ending.enumerated().map { TurnStreamEvent(turnID: turnID, number: last + 1 + $0.offset, content: $0.element) }
            for event in appended {
                let data = try await keys.seal(event.content.data, .streamEvent, row: Self.eventRow(turnID, event.number), scope: .user(owner))
                try await Self.rows("""
                    INSERT INTO turnStreamEvent (turnID, number, name, data)
                    VALUES (\(turnID), \(event.number), \(event.content.name), \(data))
                    """, on: connection)
            }
            let now = at.millisecondRounded
            try await Self.rows("UPDATE turnStream SET finishedAt = \(now) WHERE turnID = \(turnID)", on: connection)
            try await Self.rows("""
                UPDATE turn SET status = 'interrupted', finishedAt = \(now) WHERE status = 'streaming' AND assistantMessageID = \(replyID)
                """, on: connection)
            let content = try await keys.seal(replyText, .messageContent, row: replyID, scope: .user(owner))
            let error = try await keys.seal(StreamInterruption.storedError, .messageError, row: replyID, scope: .user(owner))
            try await Self.rows("""
                UPDATE message SET status = 'interrupted', version = version + 1, content = \(content), updatedAt = \(now), error = \(error)
                WHERE status = 'streaming' AND id = \(replyID)
                """, on: connection)
            return appended
        }
    }

    public func orphanedStreams(heartbeatBefore: Date) async throws -> [TurnStreamRecord] {
        try await rows("""
            SELECT \(unescaped: Self.streamColumns(of: "s")) FROM turnStream s LEFT JOIN serviceNode n ON n.nodeID = s.nodeID
            WHERE s.finishedAt IS NULL
            AND ((n.heartbeatAt IS NULL AND s.startedAt < \(heartbeatBefore.millisecondRounded)) OR n.heartbeatAt < \(heartbeatBefore.millisecondRounded))
            """).map(Self.streamRecord)
    }

    public func pruneStreams(finishedBefore: Date) async throws -> Int {
        try await transaction { connection in
            let cutoff = finishedBefore.millisecondRounded
            try await Self.rows("""
                DELETE FROM turnStreamEvent WHERE turnID IN (SELECT turnID FROM turnStream WHERE finishedAt IS NOT NULL AND finishedAt < \(cutoff))
                """, on: connection)
            return try await Self.rows("DELETE FROM turnStream WHERE finishedAt IS NOT NULL AND finishedAt < \(cutoff) RETURNING turnID",
                                       on: connection).count
        }
    }

    /// The columns `streamRecord` reads, in its order, of the table named (or aliased) `table`.
    static func streamColumns(of table: String) -> String {
        ["turnID", "userID", "threadID", "replyMessageID", "nodeID", "startedAt", "finishedAt", "listenedAt"]
            .map { "\(table).\($0)" }.joined(separator: ", ")
    }

    static func streamRecord(_ row: PostgresRow) throws -> TurnStreamRecord {
        let (turnID, userID, threadID, replyID, nodeID, startedAt, finishedAt, listenedAt) =
            try row.decode((String, String, String, String, String, Date, Date?, Date?).self)
        return TurnStreamRecord(turnID: turnID, userID: userID, threadID: threadID, replyMessageID: replyID, nodeID: nodeID,
                                startedAt: startedAt, finishedAt: finishedAt, listenedAt: listenedAt)
    }
}
