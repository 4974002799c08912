import GriotStore

extension PostgresChatStore {
    public func rateLimiter(_ limits: [RateLimit]) throws -> any RateLimiter {
        PostgresRateLimiter(database: database, limits: limits, pseudonyms: pseudonyms)
    }
}
