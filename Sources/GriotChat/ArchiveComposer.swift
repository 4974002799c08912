import Foundation
import GriotProviders

/// Ask the Griot's answer without a model: the sentences of the retrieved passages that best
/// answer the question, grouped by story and cited by number (`ExtractiveResponder.compose`).
///
/// ```swift
/// let griot = AssistantDeclaration(id: "griot", displayName: "the Griot", retrieval: .stories, offline: ArchiveComposer())
/// ArchiveComposer().compose(request)   // "Here is what the family's stories say ... [1]"
/// ```
public struct ArchiveComposer: OfflineComposer {
    private let responder: ExtractiveResponder

    /// - Parameter responder: scores sentences by their words alone unless it was made with an embedder.
    public init(responder: ExtractiveResponder = ExtractiveResponder()) {
        self.responder = responder
    }

    public var modelName: String { ExtractiveResponder.model }

    public func compose(_ request: ChatRequest) -> String {
        responder.compose(request)
    }

    /// Scored as the offline responder that asks scores sentences: with its embedder, or by words alone.
    public func compose(_ request: ChatRequest, embedding embed: (@Sendable ([String]) -> [[Float]])?) -> String {
        ExtractiveResponder(embed: embed).compose(request)
    }
}
