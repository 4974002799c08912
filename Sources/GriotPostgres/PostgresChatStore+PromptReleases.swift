import Foundation
import GriotStore
import PostgresNIO

extension PostgresChatStore {
    public func promptLabels() async throws -> [String: [String: PromptRelease]] {
        var labels: [String: [String: PromptRelease]] = [:]
        for row in try await rows("SELECT assistant, label, version, textHash FROM promptLabel") {
            let (assistant, label, version, hash) = try row.decode((String, String, Int, String).self)
            labels[assistant, default: [:]][label] = PromptRelease(version: version, textHash: hash)
        }
        return labels
    }

    public func setPromptLabel(assistant: String, label: String, release: PromptRelease, at: Date) async throws {
        try await rows("""
            INSERT INTO promptLabel (assistant, label, version, textHash, updatedAt)
            VALUES (\(assistant), \(label), \(release.version), \(release.textHash), \(at.millisecondRounded))
            ON CONFLICT (assistant, label) DO UPDATE SET version = excluded.version, textHash = excluded.textHash, updatedAt = excluded.updatedAt
            """)
    }

    public func appendPromotion(assistant: String, record: String, at: Date) async throws {
        try await rows("INSERT INTO promptPromotion (assistant, at, record) VALUES (\(assistant), \(at.millisecondRounded), \(record))")
    }

    public func promotions(assistant: String) async throws -> [String] {
        try await rows("SELECT record FROM promptPromotion WHERE assistant = \(assistant) ORDER BY id").map { try $0.decode(String.self) }
    }
}
