import GriotTestSupport
import Synchronization

/// What the cluster's stub model does with the next request: answer a short reply, or fail with
/// a server error (500), as an upstream that is down does. Every node shares it.
///
/// ```swift
/// cluster.model.set(.failing)
/// defer { cluster.model.set(.answering) }
/// ```
final class ModelSwitch: Sendable {
    enum Mode: Sendable {
        case answering
        case failing
        /// A long reply at a slow pace (30 sentences, 0.2 s apart: about 6 s), to kill a node under.
        case slow
        /// A reply citing the first three passages it was given, whatever they are: the stories
        /// retrieval put before the model under the caller's access are what its citations name.
        case citing
    }

    private let mode = Mutex(Mode.answering)

    func set(_ mode: Mode) {
        self.mode.withLock { $0 = mode }
    }

    func reply() -> StubReply {
        switch mode.withLock({ $0 }) {
        case .answering: .stream(["Thank you for asking. ", "The stories are yours to keep."])
        case .failing: .error(status: 500, message: "the stub model is down")
        case .slow: .stream((1...30).map { "Sentence \($0) of a patient answer, for Zofia Łukasiewicz and 李秀英. " }, pause: 0.2)
        case .citing: .stream(["The stories remember it [1]. ", "Another tells it too [2]. ", "A third adds more [3]."])
        }
    }
}
