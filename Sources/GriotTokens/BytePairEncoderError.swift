/// What can go wrong loading an encoding, each with what to do about it.
public enum BytePairEncoderError: Error, CustomStringConvertible, Equatable {
    case rankFileMissing(path: String)
    case rankFileUnreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case .rankFileMissing(let path):
            return "the byte-pair rank file \(path) does not exist; run scripts/fetch-tokenizers.sh "
                + "(or set GRIOT_TOKENIZER_DIR to the folder that holds it)"
        case .rankFileUnreadable(let path, let reason):
            return "the byte-pair rank file \(path) cannot be read: \(reason); "
                + "run scripts/fetch-tokenizers.sh to fetch it again"
        }
    }
}
