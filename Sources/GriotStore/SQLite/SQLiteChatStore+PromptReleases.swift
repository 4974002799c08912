import Foundation
import GRDB

extension SQLiteChatStore {
    public func promptLabels() async throws -> [String: [String: PromptRelease]] {
        try await writer.read { db in
            var labels: [String: [String: PromptRelease]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT assistant, label, version, textHash FROM promptLabel") {
                labels[row["assistant"], default: [:]][row["label"]] = PromptRelease(version: row["version"], textHash: row["textHash"])
            }
            return labels
        }
    }

    public func setPromptLabel(assistant: String, label: String, release: PromptRelease, at: Date) async throws {
        try await writer.commit { db in
            try db.execute(sql: """
                INSERT INTO promptLabel (assistant, label, version, textHash, updatedAt) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(assistant, label) DO UPDATE SET version = excluded.version, textHash = excluded.textHash, updatedAt = excluded.updatedAt
                """, arguments: [assistant, label, release.version, release.textHash, at])
        }
    }

    public func appendPromotion(assistant: String, record: String, at: Date) async throws {
        try await writer.commit { db in
            try db.execute(sql: "INSERT INTO promptPromotion (assistant, at, record) VALUES (?, ?, ?)", arguments: [assistant, at, record])
        }
    }

    public func promotions(assistant: String) async throws -> [String] {
        try await writer.read { db in
            try String.fetchAll(db, sql: "SELECT record FROM promptPromotion WHERE assistant = ? ORDER BY id", arguments: [assistant])
        }
    }
}
