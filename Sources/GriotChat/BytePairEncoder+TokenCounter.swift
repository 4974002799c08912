import Foundation
import GriotTokens

extension BytePairEncoder: TokenCounter {
    public var encodingName: String { name.rawValue }
}

extension TokenCounters {
    /// Exact counts with OpenAI's vocabularies, from the rank files scripts/fetch-tokenizers.sh
    /// installs (`GRIOT_TOKENIZER_DIR`, else ~/.cache/griot/tokenizers); each is loaded once.
    public static let bytePair = TokenCounters { name in
        guard let encoding = TokenEncodingName(rawValue: name) else {
            throw UnknownEncoding(name: name)
        }
        return try BytePairEncoder.load(encoding)
    }
}

struct UnknownEncoding: Error, CustomStringConvertible {
    var name: String
    var description: String {
        "unknown token encoding \(name); use \(TokenEncodingName.allCases.map(\.rawValue).joined(separator: " or "))"
    }
}
