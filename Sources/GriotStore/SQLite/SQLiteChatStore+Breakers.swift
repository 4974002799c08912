import Foundation
import GRDB

extension SQLiteChatStore {
    public func breakerState(_ name: String) async throws -> (openSince: Double?, probeUntil: Double?)? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT openSince, probeUntil FROM breakerState WHERE name = ?", arguments: [name])
                .map { (openSince: $0["openSince"], probeUntil: $0["probeUntil"]) }
        }
    }

    public func openBreaker(_ name: String, since: Double) async throws {
        try await writer.commit { db in
            try db.execute(sql: """
                INSERT INTO breakerState (name, openSince, probeUntil) VALUES (?, ?, NULL)
                ON CONFLICT(name) DO UPDATE SET openSince = excluded.openSince, probeUntil = NULL
                WHERE breakerState.openSince IS NULL OR breakerState.openSince < excluded.openSince
                """, arguments: [name, since])
        }
    }

    public func closeBreaker(_ name: String) async throws {
        try await writer.commit { db in
            try db.execute(sql: "UPDATE breakerState SET openSince = NULL, probeUntil = NULL WHERE name = ?", arguments: [name])
        }
    }

    public func claimBreakerProbe(_ name: String, now: Double, openSeconds: Double, lease: Double) async throws -> Bool {
        try await writer.commit { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM breakerState WHERE name = ? AND openSince IS NOT NULL", arguments: [name]) != nil else {
                return true
            }
            try db.execute(sql: """
                UPDATE breakerState SET probeUntil = ? WHERE name = ? AND openSince IS NOT NULL AND openSince + ? <= ?
                AND (probeUntil IS NULL OR probeUntil <= ?)
                """, arguments: [now + lease, name, openSeconds, now, now])
            return db.changesCount == 1
        }
    }

    public func releaseBreakerProbe(_ name: String) async throws {
        try await writer.commit { db in
            try db.execute(sql: "UPDATE breakerState SET probeUntil = NULL WHERE name = ?", arguments: [name])
        }
    }
}
