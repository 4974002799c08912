extension Optional {
    /// `flatMap` for a transform that awaits (a store read of an optional id).
    public func asyncFlatMap<Result>(_ transform: (Wrapped) async throws -> Result?) async rethrows -> Result? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
