import Foundation

/// Re-wraps a database's data keys under its keyring's active master key (`griot keys
/// rotate-master`). Online: the data keys inside stay the same, so nodes keep reading and
/// writing; each key is re-wrapped by one statement that checks the key was not changed
/// meanwhile, so a run stopped anywhere (or limited by `max`) is finished by the next one.
///
/// ```swift
/// let outcome = try await MasterKeyRotation(store: storage.chats).run(max: 500) { done, total in … }
/// print(outcome.left)   // [:] once nothing is wrapped by an older key
/// ```
public struct MasterKeyRotation: Sendable {
    public struct Outcome: Sendable, Equatable {
        public var rewrapped = 0
        /// Keys changed by someone else between the read and the write (left for the next run).
        public var skipped = 0
        /// Data keys still wrapped by a master key other than the active one, by master key id.
        public var left: [String: Int] = [:]
    }

    public let store: any DataKeyStore
    public let batch: Int

    public init(store: any DataKeyStore, batch: Int = 200) {
        self.store = store
        self.batch = batch
    }

    public func run(max: Int? = nil, progress: @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in }) async throws -> Outcome {
        guard let keyring = store.cipher.keyring else { throw CipherError.noKeyring }
        let active = keyring.active.id
        let total = try await store.dataKeyCounts().filter { $0.key != active }.values.reduce(0, +)
        let limit = Swift.min(total, max ?? total)
        var outcome = Outcome()
        var after: String?
        rotation: while outcome.rewrapped < limit {
            try Task.checkCancellation()
            let page = try await store.dataKeys(notWrappedBy: active, after: after, limit: batch)
            if page.isEmpty { break }
            for record in page {
                if outcome.rewrapped >= limit { break rotation }
                after = record.id
                if try await store.replaceWrapping(try store.cipher.rewrap(record), previous: record) {
                    outcome.rewrapped += 1
                } else {
                    outcome.skipped += 1
                }
                progress(outcome.rewrapped, limit)
            }
        }
        outcome.left = try await store.dataKeyCounts().filter { $0.key != active }
        return outcome
    }
}
