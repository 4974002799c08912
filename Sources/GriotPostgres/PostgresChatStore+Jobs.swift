import GriotStore
import PostgresNIO

extension PostgresChatStore {
    /// Takes a session advisory lock named after the job (and the schema) on one connection, runs
    /// the job while holding it, and gives it back; a node that finds it taken skips the job.
    /// A node that dies mid-job loses its connection, and with it the lock.
    public func runExclusively(_ job: String, _ body: @Sendable () async throws -> Void) async throws -> Bool {
        let logger = database.logger
        return try await database.client.withConnection { connection in
            let key: PostgresQuery = "SELECT pg_try_advisory_lock(\(PostgresSchema.lockClass), hashtext(\("job " + job) || ' in ' || current_schema()))"
            let taken = try await connection.query(key, logger: logger).collect().first?.decode(Bool.self) ?? false
            guard taken else { return false }
            do {
                try await body()
            } catch {
                try? await connection.query("SELECT pg_advisory_unlock(\(PostgresSchema.lockClass), hashtext(\("job " + job) || ' in ' || current_schema()))",
                                            logger: logger)
                throw error
            }
            try await connection.query("SELECT pg_advisory_unlock(\(PostgresSchema.lockClass), hashtext(\("job " + job) || ' in ' || current_schema()))",
                                       logger: logger)
            return true
        }
    }
}
