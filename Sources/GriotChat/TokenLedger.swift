/// Counts tokens the way the model will. The BPE encoder is the real one; tests may use others.
public protocol TokenCounter: Sendable {
    /// The vocabulary's name (`o200k_base`), recorded in the ledger.
    var encodingName: String { get }
    func count(_ text: String) -> Int
}

/// What a request spent its token budget on, and what did not fit. Part of every turn's result.
public struct TokenLedger: Sendable, Hashable, Codable {
    /// One part of the request and its tokens (content plus the chat format's per-message overhead
    /// where the part is a message of its own).
    public struct Entry: Sendable, Hashable, Codable {
        public var part: String
        public var tokens: Int
        public var detail: String?
    }

    /// Something left out or shortened, and why.
    public struct Drop: Sendable, Hashable, Codable {
        public var part: String
        public var tokens: Int
        public var reason: String
    }

    public var encoding: String
    /// The request's limit, including the reply reserve.
    public var budget: Int
    public var replyReserve: Int
    public var entries: [Entry] = []
    public var dropped: [Drop] = []

    /// Tokens of the request as sent (without the reply reserve).
    public var promptTokens: Int { entries.reduce(0) { $0 + $1.tokens } }
    /// What the request may take at most: prompt plus the reply it allows.
    public var total: Int { promptTokens + replyReserve }

    public func tokens(of part: String) -> Int {
        entries.filter { $0.part == part || $0.part.hasPrefix(part + " ") }.reduce(0) { $0 + $1.tokens }
    }
}
