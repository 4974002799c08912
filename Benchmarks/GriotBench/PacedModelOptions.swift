import ArgumentParser
import NIOPosix

/// The paced stub model a benchmark runs in its own process in front of `griot serve`: the reply
/// it streams, its pace, and the event-loop threads it shares with the benchmark's client.
/// Shared, with `@OptionGroup`, by the benchmarks that measure streams through the service.
///
/// ```swift
/// @OptionGroup var model: PacedModelOptions
/// let (group, stub) = try await model.start()
/// print(model.summary(of: stub))
/// ```
struct PacedModelOptions: ParsableArguments {
    @Option(help: "Tokens in each reply.")
    var tokens = 400

    /// Sentences of random lengths test the auto-save: the output gate holds a sentence until its
    /// full stop, so a short sentence followed by a long one is on the client long before the
    /// next sentence is released.
    @Option(help: "Words in each sentence of the reply: a number (12), or a range (2-80) for random lengths, the same for every chat.")
    var sentenceWords = "12"

    /// 50 ms a token is 20 tokens a second, the pace of a hosted model (they stream at 20-100).
    @Option(help: "Seconds between two tokens of a reply.")
    var pace = 0.050

    @Option(help: "Event-loop threads of this process (the stub and the client share them).")
    var threads = 2

    func validate() throws {
        guard ServeLoadBenchmark.sentenceLengths(sentenceWords) != nil else {
            throw ValidationError("--sentence-words must be a number or a range of positive numbers, e.g. 12 or 2-80")
        }
        guard tokens >= 1, pace > 0, threads >= 1 else {
            throw ValidationError("--tokens ≥ 1, --pace > 0 and --threads ≥ 1, e.g. --tokens 400 --pace 0.05 --threads 2")
        }
    }

    /// The reply every chat gets, token by token.
    var reply: [String] { ServeLoadBenchmark.reply(tokens: tokens, sentenceWords: ServeLoadBenchmark.sentenceLengths(sentenceWords)!) }

    /// An event-loop group of `threads` threads, and the stub on it streaming `reply` at `pace`.
    func start() async throws -> (group: MultiThreadedEventLoopGroup, stub: PacedModelStub) {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        return (group, try await PacedModelStub.start(pieces: reply, pace: pace, group: group))
    }

    /// The report's line on the stub: where it listens and what it streams how fast.
    func summary(of stub: PacedModelStub) -> String {
        "stub model on \(stub.baseURL): \(tokens) tokens, one every \(ServeLoadBenchmark.format(pace * 1000)) ms "
            + "(\(ServeLoadBenchmark.format(Double(tokens) * pace)) s a reply), sentences of \(sentenceWords) words"
    }
}
