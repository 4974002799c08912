import GriotEmbedding
import Synchronization

/// The questions of every turn waiting for the preparation lane, embedded in one encoder pass.
///
/// ```swift
/// let batcher = QueryEmbeddingBatcher(embedder: embedder, lane: .shared)
/// await batcher.embed("Who was Octavia Batiste?")   // then the search finds the vector ready
/// ```
/// Alone, a question of 15 word pieces spends most of its encoder pass repacking the model's
/// weights inside OpenBLAS: every multiply copies a whole weight matrix for 15 rows of work.
/// Questions that arrive while the lane is busy wait together, and the first lane thread free
/// embeds them all in one pass, so the copy is shared (`griot-bench query-embedding` measures
/// the CPU a question, alone and in batches). With no queue, a batch is one question and costs
/// what it did. The vectors go to the embedder's store of recent texts, where the search's own
/// `embed(query)` finds them.
public final class QueryEmbeddingBatcher: Sendable {
    /// Questions a pass takes at most (about 1,000 word pieces): a longer pass would hold one
    /// lane thread long enough to delay the next chats' retrieval.
    public static let largestBatch = 64

    private struct Waiting {
        var questions: [(text: String, done: CheckedContinuation<Void, Never>)] = []
        /// A pass is queued on the lane and has not yet taken the waiting questions.
        var scheduled = false
    }

    private let embedder: SentenceEmbedder
    private let lane: PreparationLane
    private let waiting = Mutex(Waiting())

    public init(embedder: SentenceEmbedder, lane: PreparationLane) {
        self.embedder = embedder
        self.lane = lane
    }

    /// Returns once `text` is embedded and held by the embedder, with the other questions
    /// waiting at the time, on the lane.
    public func embed(_ text: String) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let schedules = waiting.withLock { waiting -> Bool in
                waiting.questions.append((text, done))
                guard !waiting.scheduled else { return false }
                waiting.scheduled = true
                return true
            }
            if schedules { lane.submit { self.pass() } }
        }
    }

    /// One encoder pass over the questions waiting (up to `largestBatch`); a pass for the rest
    /// goes to the back of the lane's queue.
    private func pass() {
        let (batch, more) = waiting.withLock { waiting -> ([(text: String, done: CheckedContinuation<Void, Never>)], Bool) in
            let batch = Array(waiting.questions.prefix(Self.largestBatch))
            waiting.questions.removeFirst(batch.count)
            waiting.scheduled = !waiting.questions.isEmpty
            return (batch, waiting.scheduled)
        }
        if more { lane.submit { self.pass() } }
        embedder.embedQueries(batch.map(\.text))
        for question in batch { question.done.resume() }
    }
}
