/// What can go wrong with the embedding model, each with what to do about it.
public enum EmbeddingError: Error, CustomStringConvertible, Equatable {
    case modelMissing(path: String)
    case modelDamaged(path: String, reason: String)
    case blasMissing(String)

    public var description: String {
        switch self {
        case .modelMissing(let path):
            return "the embedding model is not at \(path); run scripts/fetch-model.sh (or set GRIOT_MODEL_DIR to its folder)"
        case .modelDamaged(let path, let reason):
            return "the embedding model at \(path) cannot be read (\(reason)); run scripts/fetch-model.sh again to replace it"
        case .blasMissing(let reason):
            return "OpenBLAS could not be loaded (\(reason)); install it with: apt-get install libopenblas-dev (scripts/setup.sh does this)"
        }
    }
}
