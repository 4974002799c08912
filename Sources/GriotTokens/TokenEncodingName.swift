/// The OpenAI encodings Griot can count tokens in, named as tiktoken names them.
///
///     let encoder = try BytePairEncoder.load(.o200kBase)
///     encoder.count("How many tokens is this?")   // 6
public enum TokenEncodingName: String, Sendable, CaseIterable {
    /// GPT-4, GPT-3.5-turbo and the text-embedding-3 models.
    case cl100kBase = "cl100k_base"
    /// GPT-4o, GPT-4.1 and the o-series models.
    case o200kBase = "o200k_base"

    /// The rank file's name in the tokenizer folder (scripts/fetch-tokenizers.sh puts it there).
    public var fileName: String { rawValue + ".tiktoken" }

    /// The split regex (tiktoken's `pat_str`) that this encoding's splitter reproduces.
    public var pattern: String {
        switch self {
        case .cl100kBase: Cl100kSplitter.pattern
        case .o200kBase: O200kSplitter.pattern
        }
    }

    /// The special tokens, which `encode` never produces (special-token text is encoded as
    /// ordinary text) but `decode` turns back into their text.
    public var specialTokens: [String: Int] {
        switch self {
        case .cl100kBase:
            ["<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
             "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276]
        case .o200kBase:
            ["<|endoftext|>": 199999, "<|endofprompt|>": 200018]
        }
    }
}
