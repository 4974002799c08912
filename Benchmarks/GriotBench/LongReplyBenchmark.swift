import ArgumentParser
import Foundation
import GriotArchive
import GriotChat
import GriotEmbedding
import GriotPrompts
import GriotProviders
import GriotSearch
import GriotStore

/// What a long model reply costs the output stages (PII scrubbing, output moderation, the
/// citation check, groundedness, copyright), on the demo corpus, for 10 kB, 100 kB and 1 MB
/// replies streamed in token-sized pieces. Each size runs twice in the same run:
///
/// - **bounded**: the service as shipped. The reply is read up to the request's `max_tokens`
///   plus the margin and flagged `truncated`, so its cost should not grow with what the model sends.
/// - **stages, unbounded**: a copy of the prompts with `reply_reserve` raised past the reply, so
///   every byte goes through every stage; the time per kB should stay flat from 10 kB to 1 MB
///   (linear), reported as the ratio of each size's µs/kB to the 10 kB figure.
///
/// The peer in the same run is the same pipeline with the output stages off (`safety: []`).
struct LongReplyBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "long-reply", abstract: "Output stages on 10 kB, 100 kB and 1 MB model replies: bounded, and linear when unbounded.")

    @Option(help: "The prompts folder to copy.")
    var prompts = "prompts"

    @Option(help: "Reply sizes in bytes.")
    var sizes: [Int] = [10_000, 100_000, 1_000_000]

    func run() async throws {
        let embedder = try SentenceEmbedder()
        let archive = try StoryArchive(storage: .inMemory(), embedder: embedder)
        _ = try await archive.ingest(StoryFiles.read(["corpus"]).stories)
        let shipped = try PromptRegistry.load(folder: URL(fileURLWithPath: prompts))
        let unbounded = try Self.copy(prompts: prompts, replyReserve: 400_000, safety: nil)
        let noStages = try Self.copy(prompts: prompts, replyReserve: 400_000, safety: "[]")
        print("long replies through the griot assistant's output stages (demo corpus)")
        print(String(format: "  %-9@ %14@ %20@ %16@ %12@", "size", "bounded ms", "stages unbounded ms", "stages µs/kB", "no stages ms"))
        var baseline: Double?
        for size in sizes {
            let pieces = Self.reply(bytes: size)
            let bounded = try await time(pieces, archive: archive, embedder: embedder, prompts: shipped)
            let staged = try await time(pieces, archive: archive, embedder: embedder, prompts: unbounded, label: "9")
            let plain = try await time(pieces, archive: archive, embedder: embedder, prompts: noStages, label: "9")
            let perKB = staged.milliseconds * 1000 / (Double(size) / 1000)
            baseline = baseline ?? perKB
            print(String(format: "  %-9@ %10.1f (%@) %20.1f %10.1f (x%.2f) %12.1f", "\(size / 1000) kB" as NSString, bounded.milliseconds,
                         "\(bounded.bytes / 1000) kB kept" as NSString, staged.milliseconds, perKB, perKB / baseline!, plain.milliseconds))
        }
    }

    struct Timing {
        var milliseconds: Double
        var bytes: Int
    }

    func time(_ pieces: [String], archive: StoryArchive, embedder: SentenceEmbedder, prompts: PromptRegistry, label: String = "production") async throws -> Timing {
        let engine = ChatEngine(archive: archive, chats: try Storage.inMemory().chats, prompts: prompts,
                                provider: ScriptedReply(pieces: pieces), counters: .bytePair, safety: .standard(embedder: embedder, environment: [:]))
        let start = ContinuousClock.now
        let turn = try await engine.startTurn(TurnRequest(message: "What happened when the levee broke?", viewer: Viewer(userID: "u-bench"), promptLabel: label))
        var text = 0
        for await event in turn.events {
            if case .done(let summary) = event {
                text = summary.text.utf8.count
            }
        }
        await turn.finished()
        let elapsed = ContinuousClock.now - start
        return Timing(milliseconds: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15, bytes: text)
    }

    /// Story-like sentences with citations, names, a phone number and a date now and then, cut
    /// into pieces of about one token as a model streams them.
    static func reply(bytes: Int) -> [String] {
        let sentences = [
            "The water came up over the levee at Mounds Landing in the spring of 1927 [1]. ",
            "Ida Mae Carter remembered two nights on the church roof with her brothers [2]. ",
            "Her uncle kept the store on Front Street, and you could call him at 601-555-0142 back then. ",
            "They rowed to the levee when the rain stopped, and nobody slept that week [1][3]. ",
            "Later the family moved north to Chicago, where Tad found work in the stockyards. ",
        ]
        var text = ""
        var index = 0
        while text.utf8.count < bytes {
            text += sentences[index % sentences.count]
            index += 1
        }
        var pieces: [String] = []
        var piece = ""
        for character in text {
            piece.append(character)
            if character == " " && piece.count >= 3 {
                pieces.append(piece)
                piece = ""
            }
        }
        if !piece.isEmpty { pieces.append(piece) }
        return pieces
    }

    /// A copy of the prompts folder with the griot prompt's `reply_reserve` (and total) raised,
    /// and its safety stages replaced when `safety` is given.
    static func copy(prompts: String, replyReserve: Int, safety: String?) throws -> PromptRegistry {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("griot-long-reply-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: prompts), to: folder)
        // Published versions are immutable: the change is a draft, version 9, asked for by number.
        var text = try String(contentsOf: folder.appendingPathComponent("griot/1.md"), encoding: .utf8)
        let file = folder.appendingPathComponent("griot/9.md")
        text = text.replacingOccurrences(of: "\nversion: 1\n", with: "\nversion: 9\n")
        text = text.replacingOccurrences(of: "  total: 4000\n", with: "  total: \(min(1_000_000, replyReserve * 2))\n")
        text = text.replacingOccurrences(of: "  reply_reserve: 700\n", with: "  reply_reserve: \(replyReserve)\n")
        if let safety {
            text = text.replacingOccurrences(of: "safety: [moderation, crisis, pii, citations, groundedness, copyright]", with: "safety: \(safety)")
        }
        try text.write(to: file, atomically: true, encoding: .utf8)
        return try PromptRegistry.load(folder: folder)
    }
}

/// A model that streams the same pieces, as fast as they are read, and ignores `max_tokens`.
struct ScriptedReply: ChatProvider {
    let pieces: [String]
    var name: String { "scripted-long-reply" }
    var defaultModel: String { "scripted" }

    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ProviderEvent, any Error> {
        AsyncThrowingStream { continuation in
            continuation.yield(.model("scripted"))
            for piece in pieces {
                continuation.yield(.text(piece))
            }
            continuation.yield(.finished(reason: "stop", usage: nil))
            continuation.finish()
        }
    }

    func generate(_ request: ChatRequest, into deliver: @escaping @Sendable (ProviderEvent) -> Void) async throws {
        deliver(.model("scripted"))
        for piece in pieces {
            try Task.checkCancellation()
            deliver(.text(piece))
        }
        deliver(.finished(reason: "stop", usage: nil))
    }
}
