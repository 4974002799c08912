import Foundation

/// Everything the service keeps about conversations, on whichever database it runs on: the
/// seam the pipeline, the server and the commands use, with one backend per database
/// (`SQLiteChatStore` through GRDB, `PostgresChatStore` through postgres-nio). Both pass the
/// same conformance suite (`StoreConformanceTests`).
///
/// ```swift
/// let chats: any ChatStore = try await StorageLocation.parse("postgres://…").open().chats
/// let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth")
/// try await chats.appendMessage(threadID: thread.id, role: .user, content: "Who was Aunt Lil?")
/// ```
///
/// The parts are named by what they store, so a reader finds audit where audit belongs.
public protocol ChatStore: ThreadStore, MessageStore, TurnStore, AuditLog, SafetyLog, RetentionStore, SupportGrantStore, BreakerStore,
                           PromptReleaseStore, StreamJournal, APIKeyStore, ReviewQueue, TurnRollupStore, DataKeyStore {
    /// The keys of the abuse limits that outlive an erasure (warning counts; see `UserPseudonyms`).
    var pseudonyms: UserPseudonyms { get }

    /// A limiter counting users' messages in this database, under their pseudonyms: the
    /// limits live with the conversations they limit, so every node on the database agrees.
    func rateLimiter(_ limits: [RateLimit]) throws -> any RateLimiter

    /// Runs a scheduled job unless another node on this database is running the job of that
    /// name now (then it returns false at once): the jobs are idempotent, but two nodes purging
    /// or archiving the same rows together would only wait on each other's locks.
    func runExclusively(_ job: String, _ body: @Sendable () async throws -> Void) async throws -> Bool
}
