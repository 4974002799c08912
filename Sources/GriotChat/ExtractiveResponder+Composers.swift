import Foundation

/// The composer that writes the reply of the turn being generated, when the provider is the
/// offline responder: `TurnPipeline` binds the assistant's `OfflineComposer` around the provider
/// call, and `ExtractiveResponder.stream` answers with it. The composer travels with the call
/// rather than in place of the provider, so that whatever stands around the responder (a
/// replay's cassette, its trace span) sees one provider, as it would a model.
///
/// ```swift
/// try await OfflineComposition.$composer.withValue(CoachComposer()) {
///     try await provider.generate(request, into: deliver)   // the coach's reply, offline
/// }
/// ```
public enum OfflineComposition {
    @TaskLocal public static var composer: (any OfflineComposer)?
}
