// INTERIM until the tokenizer and provider branches merge: replaced, not kept.
import GriotProviders
struct InterimCounter: TokenCounter {
    var encodingName: String { "interim" }
    func count(_ text: String) -> Int { max(1, text.unicodeScalars.count / 4) }
}
extension TokenCounters { public static let bytePair = TokenCounters { _ in InterimCounter() } }
extension ChatEngine {
    static func remoteProvider(environment: [String: String]) throws -> any ChatProvider { throw ProviderError.notConfigured("interim") }
}
