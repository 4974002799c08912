import ArgumentParser
import Foundation
import GriotTokens

/// Token throughput: Griot's byte-pair encoder and OpenAI's tiktoken (its Rust core, one
/// thread) on the same documents in one run, with both encodings; the token counts must
/// agree, or the run fails.
struct TokenBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "Tokens per second, ours and tiktoken's, on the WPA narratives and SciFact abstracts.")

    @Option(help: "The shared data folder (wpa-narratives/, beir-scifact/).")
    var data = "../shared/data"

    @Option(help: "Timed passes over each corpus; the fastest counts (the narratives take only milliseconds).")
    var passes = 5

    @Option(help: "A Python with tiktoken (scripts/token-venv.sh); the peer is skipped without it.")
    var peerPython: String?

    @Option(help: "The peer script.")
    var peerScript = "Benchmarks/peers/tiktoken_tokens.py"

    struct Corpus {
        var name: String
        var texts: [String]
        var bytes: Int { texts.reduce(0) { $0 + $1.utf8.count } }
    }

    func run() async throws {
        let corpora = try loadCorpora()
        for corpus in corpora {
            print(String(format: "%@: %d documents, %.2f MB", corpus.name, corpus.texts.count, Double(corpus.bytes) / 1e6))
        }

        var ours: [String: [String: (tokens: Int, seconds: Double)]] = [:]
        for name in TokenEncodingName.allCases {
            let start = ContinuousClock.now
            let encoder = try BytePairEncoder.load(name)
            let loadSeconds = (ContinuousClock.now - start).seconds
            let again = ContinuousClock.now
            _ = try BytePairEncoder.load(name)
            print(String(format: "griot %@: first load %.1f ms (rank file and, the first time, the scalar classes), second %.3f ms",
                         name.rawValue, loadSeconds * 1000, (ContinuousClock.now - again).seconds * 1000))
            for corpus in corpora {
                let (tokens, seconds) = best(of: passes) { corpus.texts.reduce(0) { $0 + encoder.encode($1).count } }
                let (counted, countSeconds) = best(of: passes) { corpus.texts.reduce(0) { $0 + encoder.count($1) } }
                guard counted == tokens else {
                    throw ValidationError("count and encode disagree on \(corpus.name) with \(name.rawValue): \(counted) against \(tokens)")
                }
                ours[name.rawValue, default: [:]][corpus.name] = (tokens, seconds)
                print(String(format: "griot %@ %@: %d tokens; encode %.3f s = %.2f M tokens/s, %.1f MB/s; count %.2f M tokens/s",
                             name.rawValue, corpus.name, tokens, seconds, Double(tokens) / seconds / 1e6,
                             Double(corpus.bytes) / seconds / 1e6, Double(tokens) / countSeconds / 1e6))
            }
        }

        guard let peerPython else {
            print("peer skipped: pass --peer-python (scripts/bench-tokens.sh sets up tiktoken in a venv)")
            return
        }
        let documents = FileManager.default.temporaryDirectory.appendingPathComponent("griot-bench-tokens-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: documents) }
        let payload = corpora.map { ["name": $0.name, "texts": $0.texts] as [String: Any] }
        try JSONSerialization.data(withJSONObject: payload).write(to: documents)
        let peer = try PeerProcess.object(python: peerPython, script: peerScript, arguments: [
            "--documents", documents.path, "--ranks", BytePairEncoder.defaultFolder.path, "--passes", String(passes),
        ])
        guard let results = peer["results"] as? [String: [String: Any]] else {
            throw ValidationError("the tiktoken peer gave no results; run it alone: \(peerPython) \(peerScript)")
        }
        var disagreements: [String] = []
        for name in TokenEncodingName.allCases {
            let theirs = results[name.rawValue] ?? [:]
            print(String(format: "tiktoken %@ %@: load %.1f ms", peer["tiktoken"] as? String ?? "?", name.rawValue,
                         (theirs["load_seconds"] as? Double ?? .nan) * 1000))
            let perCorpus = theirs["corpora"] as? [String: [String: Any]] ?? [:]
            for corpus in corpora {
                guard let mine = ours[name.rawValue]?[corpus.name],
                      let tokens = perCorpus[corpus.name]?["tokens"] as? Int,
                      let seconds = perCorpus[corpus.name]?["seconds"] as? Double else {
                    throw ValidationError("the tiktoken peer gave no figure for \(corpus.name); run it alone: \(peerPython) \(peerScript)")
                }
                if tokens != mine.tokens {
                    disagreements.append("\(name.rawValue) \(corpus.name): tiktoken \(tokens), griot \(mine.tokens)")
                }
                print(String(format: "tiktoken %@ %@: %d tokens; %.3f s = %.2f M tokens/s, %.1f MB/s   ratio griot/tiktoken %.2f",
                             name.rawValue, corpus.name, tokens, seconds, Double(tokens) / seconds / 1e6,
                             Double(corpus.bytes) / seconds / 1e6, seconds / mine.seconds))
            }
        }
        guard disagreements.isEmpty else {
            throw ValidationError("token counts differ from tiktoken's: " + disagreements.joined(separator: "; "))
        }
        print("token counts agree with tiktoken on every corpus and encoding")
    }

    /// The WPA narratives cut at blank lines (passages, CRLF kept) and the SciFact titles with
    /// their abstracts.
    func loadCorpora() throws -> [Corpus] {
        var narratives: [String] = []
        let folder = data + "/wpa-narratives"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".txt") }.sorted()
        for file in files {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            narratives += text.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
        }
        let abstracts = try SciFactData.jsonLines(data + "/beir-scifact/corpus.jsonl").map {
            ($0["title"] as? String ?? "") + "\n\n" + ($0["text"] as? String ?? "")
        }
        return [Corpus(name: "wpa-narratives", texts: narratives), Corpus(name: "scifact", texts: abstracts)]
    }

    /// The result of `body` and its fastest time over `passes` runs.
    func best(of passes: Int, _ body: () -> Int) -> (Int, Double) {
        var result = 0
        var fastest = Double.infinity
        for _ in 0..<max(passes, 1) {
            let start = ContinuousClock.now
            result = body()
            fastest = min(fastest, (ContinuousClock.now - start).seconds)
        }
        return (result, fastest)
    }
}
