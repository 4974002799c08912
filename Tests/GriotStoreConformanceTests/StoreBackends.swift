import Foundation
import GriotPostgres
import GriotStore
import GriotTestSupport
import Testing

/// The databases the conformance tests run on. Every test takes a backend as its argument and
/// opens a fresh, empty store on it, so one test body states what both backends must do.
///
/// ```swift
/// @Test(arguments: StoreBackend.allCases)
/// func somethingHolds(on backend: StoreBackend) async throws {
///     try await backend.withStorage { storage in … }
/// }
/// ```
///
/// PostgreSQL: the server at `GRIOT_TEST_POSTGRES_URL`, else the one `scripts/postgres.sh up`
/// starts (once per test process; `TestServer` in GriotTestSupport). Each store is a schema of
/// its own (`TestSchema`, `t_<random>`), dropped when the store closes, so tests run in parallel
/// without seeing each other's rows. These tests run both backends whatever
/// `GRIOT_TEST_DATABASE` says (which chooses the backend of the other suites' stores).
enum StoreBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String {
        switch self {
        case .sqlite: "SQLite"
        case .postgres: "PostgreSQL"
        }
    }

    /// A fresh empty store, and how to close it (for PostgreSQL: dropping its schema).
    func open() async throws -> (Storage, close: @Sendable () async -> Void) {
        switch self {
        case .sqlite:
            return (try SQLiteStoryStore.inMemory(cipher: TestDatabase.cipher()).storage(), close: {})
        case .postgres:
            let schema = try await TestSchema.create()
            let database = try await PostgresDatabase.open(url: schema.url)
            let storage = try await database.storage()
            return (storage, close: {
                await database.close()
                do {
                    try await schema.drop()
                } catch {
                    Issue.record("could not drop the test schema \(schema.name): \(String(reflecting: error))")
                }
            })
        }
    }

    /// Runs `body` with a fresh store and closes the store after it, also when `body` throws.
    func withStorage<Result>(_ body: (Storage) async throws -> Result) async throws -> Result {
        let (storage, close) = try await open()
        do {
            let result = try await body(storage)
            await close()
            return result
        } catch {
            await close()
            throw error
        }
    }
}
