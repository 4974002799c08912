import Foundation
import GRDB

/// A user's right to erasure: everything the store holds about one user goes in one
/// transaction, so an erasure is never half done.
extension SQLiteChatStore {
    /// Deletes the user's threads (live and deleted) with their messages, archived messages,
    /// turns and retained texts, the user's profile, safety verdicts and audit entries, and removes the user's
    /// identity and IP hash from entries about other users' data the user acted on. What stays
    /// is one `user.purge` entry naming the user, with the counts and no content, as the record
    /// that the erasure was done. Another user's data is not touched. The user's data key is
    /// deleted in the same transaction, so that any copy of their ciphertext left behind (a
    /// backup, a WAL frame, a free page) can no longer be opened.
    ///
    /// The abuse limits stay: rate-limit windows and the moderation warning count are kept under
    /// the user's pseudonym (`UserPseudonyms`), never under the id, for their window only, so an
    /// erasure is no way to reset them (the legitimate interest of the people the limits
    /// protect; see docs/SECURITY.md).
    @discardableResult
    public func purgeUser(userID: String, by actorID: String? = nil, now: Date = Date()) async throws -> RetentionCounts {
        let context = AuditContext.current
        let actor = actorID ?? context?.actorID
        let cipher = self.cipher
        return try await writer.commit { db in
            var counts = RetentionCounts()
            let threadIDs = try String.fetchAll(db, sql: "SELECT id FROM thread WHERE userID = ?", arguments: [userID])
            for threadID in threadIDs { counts.add(try Self.removeThread(threadID, db)) }

            try db.execute(sql: "DELETE FROM profile WHERE userID = ?", arguments: [userID])
            counts.profiles = db.changesCount
            try db.execute(sql: "DELETE FROM retainedText WHERE userID = ?", arguments: [userID])
            try db.execute(sql: "DELETE FROM supportGrant WHERE ownerUserID = ?", arguments: [userID])
            // Streamed events hold the replies' text until the journal is pruned.
            try db.execute(sql: "DELETE FROM turnStreamEvent WHERE turnID IN (SELECT turnID FROM turnStream WHERE userID = ?)", arguments: [userID])
            try db.execute(sql: "DELETE FROM turnStream WHERE userID = ?", arguments: [userID])
            try db.execute(sql: "DELETE FROM safetyVerdict WHERE userID = ?", arguments: [userID])
            counts.verdicts = db.changesCount
            // Review tickets about the user's messages go with their verdicts (their outbox rows
            // with them); an operator's name leaves the tickets they handled.
            try db.execute(sql: "DELETE FROM reviewOutbox WHERE ticketID IN (SELECT id FROM reviewTicket WHERE userID = ?)", arguments: [userID])
            try db.execute(sql: "DELETE FROM reviewTicket WHERE userID = ?", arguments: [userID])
            try db.execute(sql: "UPDATE reviewTicket SET acknowledgedBy = NULL WHERE acknowledgedBy = ?", arguments: [userID])
            try db.execute(sql: "UPDATE reviewTicket SET resolvedBy = NULL WHERE resolvedBy = ?", arguments: [userID])

            let threadList = String(decoding: try JSONEncoder().encode(threadIDs), as: UTF8.self)
            try db.execute(sql: "DELETE FROM auditEntry WHERE userID = ? OR threadID IN (SELECT value FROM json_each(?))",
                           arguments: [userID, threadList])
            counts.auditEntries = db.changesCount
            try db.execute(sql: "UPDATE auditEntry SET actorID = NULL, ipHash = NULL WHERE actorID = ?", arguments: [userID])
            // The storyteller's children, drawings, stories, chapters and links of the user as a
            // parent. Their drawings' blobs are the caller's (`StorytellerStore.drawingHashes`).
            let storyteller = try Self.removeStorytellerRows(parentID: userID, db)
            try cipher.shred(scope: .user(userID), db: db)

            // The user's own address is theirs to erase too; an admin's stays, for accountability.
            let byUser = actor == userID
            var entry = AuditEntry(at: now, action: .userPurge, userID: userID, actorID: actor, ipHash: byUser ? nil : context?.ipHash,
                                   details: AuditEntry.details([
                                       "threads": .int(counts.threads), "messages": .int(counts.messages),
                                       "archivedMessages": .int(counts.archivedMessages), "turns": .int(counts.turns),
                                       "profiles": .int(counts.profiles),
                                       "auditEntries": .int(counts.auditEntries), "verdicts": .int(counts.verdicts),
                                       "children": .int(storyteller.children), "drawings": .int(storyteller.drawings),
                                       "bedtimeStories": .int(storyteller.stories), "chapters": .int(storyteller.chapters),
                                   ]))
            // The record of the erasure holds counts only, and must outlive the user's key.
            try entry.insert(sealedBy: cipher, scope: .service, db)
            return counts
        }
    }
}
