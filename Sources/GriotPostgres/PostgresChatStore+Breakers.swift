import Foundation
import GriotStore
import PostgresNIO

extension PostgresChatStore {
    public func breakerState(_ name: String) async throws -> (openSince: Double?, probeUntil: Double?)? {
        let rows = try await rows("SELECT openSince, probeUntil FROM breakerState WHERE name = \(name)")
        return try rows.first.map { row in try row.decode((Double?, Double?).self) }.map { (openSince: $0.0, probeUntil: $0.1) }
    }

    public func openBreaker(_ name: String, since: Double) async throws {
        try await rows("""
            INSERT INTO breakerState (name, openSince, probeUntil) VALUES (\(name), \(since), NULL)
            ON CONFLICT (name) DO UPDATE SET openSince = excluded.openSince, probeUntil = NULL
            WHERE breakerState.openSince IS NULL OR breakerState.openSince < excluded.openSince
            """)
    }

    public func closeBreaker(_ name: String) async throws {
        try await rows("UPDATE breakerState SET openSince = NULL, probeUntil = NULL WHERE name = \(name)")
    }

    /// One statement, so two nodes asking at once cannot both get the probe.
    public func claimBreakerProbe(_ name: String, now: Double, openSeconds: Double, lease: Double) async throws -> Bool {
        let until = now + lease
        let rows = try await rows("""
            WITH known AS (SELECT 1 FROM breakerState WHERE name = \(name) AND openSince IS NOT NULL),
                 claimed AS (UPDATE breakerState SET probeUntil = \(until)
                             WHERE name = \(name) AND openSince IS NOT NULL AND openSince + \(openSeconds) <= \(now)
                             AND (probeUntil IS NULL OR probeUntil <= \(now)) RETURNING 1)
            SELECT (SELECT count(*) FROM claimed) = 1 OR NOT EXISTS (SELECT 1 FROM known)
            """)
        return try rows.first?.decode(Bool.self) ?? true
    }

    public func releaseBreakerProbe(_ name: String) async throws {
        try await rows("UPDATE breakerState SET probeUntil = NULL WHERE name = \(name)")
    }
}
