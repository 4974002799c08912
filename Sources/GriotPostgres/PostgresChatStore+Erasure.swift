import Foundation
import GriotStore
import PostgresNIO

/// A user's right to erasure: everything the store holds about one user goes in one
/// transaction, so an erasure is never half done.
extension PostgresChatStore {
    /// Deletes the user's threads (live and deleted) with their messages, archived messages,
    /// turns and retained texts, the user's profile, support grants, safety verdicts and audit
    /// entries, and removes the user's identity and IP hash from entries about other users' data
    /// the user acted on. What stays is one `user.purge` entry naming the user, with the counts
    /// and no content, as the record that the erasure was done. Another user's data is not touched.
    ///
    /// The user's data key is shredded in the same transaction, so any copy of their text left
    /// behind (WAL, a dump, a backup) can no longer be opened. The `user.purge` entry, which must
    /// outlive that key, is sealed with the service's key.
    ///
    /// The abuse limits stay: rate-limit windows and the moderation warning count are kept under
    /// the user's pseudonym (`UserPseudonyms`), never under the id, for their window only, so an
    /// erasure is no way to reset them (see `SQLiteChatStore.purgeUser` and docs/SECURITY.md).
    @discardableResult
    public func purgeUser(userID: String, by actorID: String? = nil, now: Date = Date()) async throws -> RetentionCounts {
        let context = AuditContext.current
        let actor = actorID ?? context?.actorID
        try await prepareKeys([.service])
        return try await transaction { connection in
            var counts = RetentionCounts()
            let threadIDs = try await Self.rows("SELECT id FROM thread WHERE userid = \(userID) ORDER BY id FOR UPDATE", on: connection)
                .map { try $0.makeRandomAccess()[0].decode(String.self) }
            for threadID in threadIDs { counts.add(try await Self.removeThread(threadID, on: connection)) }

            counts.profiles = try await Self.rows("DELETE FROM profile WHERE userid = \(userID) RETURNING userid", on: connection).count
            try await Self.rows("DELETE FROM retainedtext WHERE userid = \(userID)", on: connection)
            try await Self.rows("DELETE FROM supportgrant WHERE owneruserid = \(userID)", on: connection)
            // Streamed events hold the replies' text until the journal is pruned.
            try await Self.rows("DELETE FROM turnstreamevent WHERE turnid IN (SELECT turnid FROM turnstream WHERE userid = \(userID))", on: connection)
            try await Self.rows("DELETE FROM turnstream WHERE userid = \(userID)", on: connection)
            counts.verdicts = try await Self.rows("DELETE FROM safetyverdict WHERE userid = \(userID) RETURNING id", on: connection).count
            // Review tickets about the user's messages go with their verdicts (their outbox rows
            // with them); an operator's name leaves the tickets they handled.
            try await Self.rows("DELETE FROM reviewticket WHERE userid = \(userID)", on: connection)
            try await Self.rows("UPDATE reviewticket SET acknowledgedby = NULL WHERE acknowledgedby = \(userID)", on: connection)
            try await Self.rows("UPDATE reviewticket SET resolvedby = NULL WHERE resolvedby = \(userID)", on: connection)

            counts.auditEntries = try await Self.rows("""
                DELETE FROM auditentry WHERE userid = \(userID) OR threadid = ANY(\(threadIDs)) RETURNING id
                """, on: connection).count
            try await Self.rows("UPDATE auditentry SET actorid = NULL, iphash = NULL WHERE actorid = \(userID)", on: connection)
            // The storyteller's children, drawings, stories, chapters and links of the user as a
            // parent. Their drawings' blobs are the caller's (`StorytellerStore.drawingHashes`).
            let storyteller = try await Self.removeStorytellerRows(parentID: userID, on: connection)

            // The user's own address is theirs to erase too; an admin's stays, for accountability.
            let byUser = actor == userID
            try await insert(AuditEntry(at: now, action: .userPurge, userID: userID, actorID: actor, ipHash: byUser ? nil : context?.ipHash,
                                             details: AuditEntry.details([
                                                 "threads": .int(counts.threads), "messages": .int(counts.messages),
                                                 "archivedMessages": .int(counts.archivedMessages), "turns": .int(counts.turns),
                                                 "profiles": .int(counts.profiles),
                                                 "auditEntries": .int(counts.auditEntries), "verdicts": .int(counts.verdicts),
                                                 "children": .int(storyteller.children), "drawings": .int(storyteller.drawings),
                                                 "bedtimeStories": .int(storyteller.stories), "chapters": .int(storyteller.chapters),
                                             ])), scope: .service, on: connection)
            // Last: a seal in this transaction after the shred would read the key it deletes.
            try await keys.shred(scope: .user(userID), on: connection)
            return counts
        }
    }
}
