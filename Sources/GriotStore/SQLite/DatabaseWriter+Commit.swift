import GRDB

extension DatabaseWriter {
    /// `write`, carried to its end even when the calling task is cancelled. GRDB interrupts an
    /// async access whose task is cancelled, and a turn's final writes run in a task that was
    /// cancelled on purpose (the user pressed stop, the reader closed the pipe): the reply must
    /// still be stored, marked stopped. The write runs in a task of its own, which a
    /// cancellation of the caller does not reach.
    ///
    /// ```swift
    /// try await writer.commit { db in try message.update(db) }
    /// ```
    func commit<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await Task { try await self.write(updates) }.value
    }

    /// `writeWithoutTransaction`, carried to its end like `commit`.
    func commitWithoutTransaction<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await Task { try await self.writeWithoutTransaction(updates) }.value
    }
}
