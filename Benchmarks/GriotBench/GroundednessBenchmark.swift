import ArgumentParser
import Foundation
import GriotEmbedding
import GriotSafety
import GriotText

/// The groundedness and copyright stages, measured on the perturbation sets that
/// scripts/make-groundedness-set.py writes (scripts/bench-groundedness.sh runs it first).
///
/// Groundedness: ROC AUC of the score overall, per kind and per source; the AUC of each
/// signal alone (lexical overlap, embedding cosine, fact consistency), the best of which is
/// the peer a naive scorer would be; precision and recall of the 0.4 flag for "unsupported";
/// milliseconds per ~250-word answer against 6 passages, one thread. Copyright: exact
/// shingle containment against MinHash, decisions and time per check.
struct GroundednessBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "groundedness",
        abstract: "The groundedness score and the copyright check, measured on the perturbation sets.")

    @Option(help: "The shared data folder (for the note only: the sets are made by scripts/make-groundedness-set.py).")
    var data = "../shared/data"

    @Option(help: "The groundedness set (JSON lines).")
    var set = ".build/evals/groundedness.jsonl"

    @Option(help: "The copyright cases (JSON lines).")
    var copyright = ".build/evals/copyright.jsonl"

    @Option(help: "Answers timed.")
    var answers = 60

    @Option(help: "Write each item's signals here (JSON lines), for looking at them.")
    var dump: String?

    func run() async throws {
        let items = try Self.readLines(set, as: GroundednessItem.self)
        guard !items.isEmpty else { throw ValidationError("\(set) is empty; run scripts/make-groundedness-set.py --data \(data)") }
        let embedder: SentenceEmbedder
        do { embedder = try SentenceEmbedder() } catch {
            throw ValidationError("\(error); run scripts/fetch-model.sh first")
        }

        // Every distinct text is embedded once up front; the scorer sees the same vectors it
        // would compute itself, and the set takes a minute instead of an hour.
        var texts = Set<String>()
        var passageSentences: [String: [String]] = [:]
        for item in items {
            texts.insert(item.sentence)
            texts.formUnion(item.passages)
            for passage in item.passages where passageSentences[passage] == nil {
                passageSentences[passage] = Self.sentences(of: passage)
                texts.formUnion(passageSentences[passage]!)
            }
        }
        let ordered = Array(texts)
        let started = Date()
        let vectors = embedder.embed(ordered)
        let cache = Dictionary(uniqueKeysWithValues: zip(ordered, vectors))
        print(String(format: "embedded %d distinct texts in %.1f s", ordered.count, Date().timeIntervalSince(started)))
        let cached: @Sendable ([String]) -> [[Float]] = { batch in
            let missing = batch.filter { cache[$0] == nil }
            let fresh = missing.isEmpty ? [:] : Dictionary(zip(missing, embedder.embed(missing)), uniquingKeysWith: { a, _ in a })
            return batch.map { cache[$0] ?? fresh[$0]! }
        }

        let scorer = GroundednessScorer(embed: cached)
        let lexicalOnly = GroundednessScorer()
        var rows: [Row] = []
        for item in items {
            let full = scorer.score(sentence: item.sentence, passages: item.passages)
            let lexical = lexicalOnly.score(sentence: item.sentence, passages: item.passages)
            let sentenceVector = cache[item.sentence]!
            let cosine = item.passages.map { Self.dot(sentenceVector, cache[$0]!) }.max() ?? 0
            let atLexicalBest = lexical.passage.map { Double(Self.dot(sentenceVector, cache[item.passages[$0]]!)) } ?? 0
            let sentenceCosine = item.passages.flatMap { passageSentences[$0]! }.map { Self.dot(sentenceVector, cache[$0]!) }.max() ?? 0
            rows.append(Row(item: item, score: full.score, lexical: lexical.lexical, cosine: Double(cosine),
                            consistency: full.consistency, lexicalScore: lexical.score, bestLexicalCosine: atLexicalBest,
                            sentenceCosine: Double(sentenceCosine)))
        }
        report(rows)
        if let dump {
            let lines = rows.map { row in
                String(format: "{\"kind\":\"%@\",\"source\":\"%@\",\"label\":%d,\"score\":%.5f,\"lexical\":%.5f,\"cosine\":%.5f,\"consistency\":%.5f,\"bestLexicalCosine\":%.5f,\"sentenceCosine\":%.5f}",
                       row.item.kind, row.item.source ?? "", row.item.label, row.score, row.lexical, row.cosine, row.consistency, row.bestLexicalCosine, row.sentenceCosine)
            }
            try lines.joined(separator: "\n").write(toFile: dump, atomically: true, encoding: .utf8)
        }
        answerLevel(items: items, scorer: scorer)
        try timeAnswers(items: items, embedder: embedder, cache: cache)
        try compareCopyright()
    }

    // MARK: - Groundedness figures

    struct Row {
        var item: GroundednessItem
        var score, lexical, cosine, consistency, lexicalScore, bestLexicalCosine, sentenceCosine: Double
    }

    private func report(_ rows: [Row]) {
        print("\ngroundedness: \(rows.count) items (\(rows.filter { $0.item.label == 1 }.count) supported, \(rows.filter { $0.item.label == 0 }.count) unsupported), set \(set)")
        let signals: [(String, (Row) -> Double)] = [
            ("score (ours)", { $0.score }),
            ("lexical only", { $0.lexical }),
            ("semantic only (cosine, whole passage)", { $0.cosine }),
            ("semantic only (cosine, best passage sentence)", { $0.sentenceCosine }),
            ("consistency only", { $0.consistency }),
            ("lexical x consistency (no embedder)", { $0.lexicalScore }),
        ]
        print("| signal | AUC all | demo | wpa |")
        print("|---|---|---|---|")
        for (name, signal) in signals {
            let all = Self.auc(rows, signal)
            let demo = Self.auc(rows.filter { $0.item.source == "demo" }, signal)
            let wpa = Self.auc(rows.filter { $0.item.source == "wpa" }, signal)
            print(String(format: "| %@ | %.4f | %.4f | %.4f |", name, all, demo, wpa))
        }
        let raised = rows.filter { $0.score > $0.lexicalScore + 1e-9 }
        print("the embedding raised the score on \(raised.count) items (\(raised.filter { $0.item.label == 1 }.count) supported, \(raised.filter { $0.item.label == 0 }.count) unsupported); "
              + "it moved \(raised.filter { ($0.score < GroundednessScore.threshold) != ($0.lexicalScore < GroundednessScore.threshold) }.count) across 0.4")
        let peer = signals[1...4].map { ($0.0, Self.auc(rows, $0.1)) }.max { $0.1 < $1.1 }!
        print(String(format: "peer (best single signal): %@ %.4f; ours %.4f", peer.0, peer.1, Self.auc(rows, { $0.score })))

        print("\nper kind (paraphrase against that kind):")
        print("| kind | items | AUC ours | AUC lexical | AUC cosine (passage) | AUC cosine (sentence) | AUC consistency | flagged < 0.4 | mean score |")
        print("|---|---|---|---|---|---|---|---|---|")
        let positives = rows.filter { $0.item.label == 1 }
        for kind in ["paraphrase", "swap_name", "swap_date", "swap_number", "swap_place", "other_story"] {
            let these = rows.filter { $0.item.kind == kind }
            let flagged = Double(these.filter { $0.score < GroundednessScore.threshold }.count) / Double(max(1, these.count))
            let mean = these.map(\.score).reduce(0, +) / Double(max(1, these.count))
            if kind == "paraphrase" {
                print(String(format: "| %@ | %d | | | | | | %.1f%% (false flags) | %.3f |", kind, these.count, flagged * 100, mean))
                continue
            }
            let pair = positives + these
            print(String(format: "| %@ | %d | %.4f | %.4f | %.4f | %.4f | %.4f | %.1f%% | %.3f |", kind, these.count,
                         Self.auc(pair, { $0.score }), Self.auc(pair, { $0.lexical }), Self.auc(pair, { $0.cosine }), Self.auc(pair, { $0.sentenceCosine }),
                         Self.auc(pair, { $0.consistency }), flagged * 100, mean))
        }
        for threshold in [0.3, GroundednessScore.threshold, 0.5] {
            let flagged = rows.filter { $0.score < threshold }
            let truePositives = flagged.filter { $0.item.label == 0 }.count
            let unsupported = rows.filter { $0.item.label == 0 }.count
            print(String(format: "flag at score < %.2f (unsupported = positive): precision %.4f, recall %.4f, flagged %d of %d",
                         threshold, Double(truePositives) / Double(max(1, flagged.count)),
                         Double(truePositives) / Double(max(1, unsupported)), flagged.count, rows.count))
        }
    }

    /// ROC AUC with "supported" (label 1) as the class a higher score should mean; ties count half.
    static func auc(_ rows: [Row], _ signal: (Row) -> Double) -> Double {
        let ranked = rows.map { (signal($0), $0.item.label) }.sorted { $0.0 < $1.0 }
        let positives = Double(ranked.filter { $0.1 == 1 }.count)
        let negatives = Double(ranked.count) - positives
        guard positives > 0, negatives > 0 else { return .nan }
        var rankSum = 0.0
        var index = 0
        while index < ranked.count {
            var end = index
            while end + 1 < ranked.count, ranked[end + 1].0 == ranked[index].0 { end += 1 }
            let averageRank = Double(index + end) / 2 + 1
            for k in index...end where ranked[k].1 == 1 { rankSum += averageRank }
            index = end + 1
        }
        return (rankSum - positives * (positives + 1) / 2) / (positives * negatives)
    }

    // MARK: - Whole answers

    /// The answer-level flag on answers built from the set: the paraphrases of one item's six
    /// passages (its own first), 3 sentences or ~250 words, then the same answer with the
    /// item's own sentence replaced by its swapped or other-story version, and with
    /// courtesies added. How often each is flagged under 0.4.
    private func answerLevel(items: [GroundednessItem], scorer: GroundednessScorer) {
        var bySource: [String: [String]] = [:]
        for item in items where item.kind == "paraphrase" {
            if let source = item.passage { bySource[item.passages[source], default: []].append(item.sentence) }
        }
        var groups: [[String]: [GroundednessItem]] = [:]
        for item in items { groups[item.passages, default: []].append(item) }
        let keys = groups.keys.sorted { $0.joined() < $1.joined() }
        var counts: [String: (flagged: Int, total: Int)] = [:]
        func count(_ name: String, _ answer: String, _ passages: [String]) {
            let flagged = scorer.score(answer: answer, passages: passages).isLowGroundedness
            counts[name, default: (0, 0)].flagged += flagged ? 1 : 0
            counts[name, default: (0, 0)].total += 1
        }
        for passages in keys.prefix(400) {
            let group = groups[passages]!
            guard let own = group.first(where: { $0.kind == "paraphrase" }) else { continue }
            let others = passages.flatMap { bySource[$0] ?? [] }.filter { $0 != own.sentence }
            for (length, words) in [("3 sentences", 0), ("~250 words", 250)] {
                var sentences = [own.sentence]
                for sentence in others {
                    if length == "3 sentences" ? sentences.count >= 3 : sentences.joined(separator: " ").split(separator: " ").count >= words { break }
                    sentences.append(sentence)
                }
                count("grounded, \(length)", sentences.joined(separator: " "), passages)
                count("grounded + courtesies, \(length)", (sentences + ["I hope this helps.", "The stories don't say more about it."]).joined(separator: " "), passages)
                for bad in group where bad.label == 0 {
                    let kind = bad.kind.hasPrefix("swap") ? "one swapped fact" : "one other-story sentence"
                    count("\(kind), \(length)", ([bad.sentence] + sentences.dropFirst()).joined(separator: " "), passages)
                }
            }
        }
        print("\nwhole answers flagged (answer < 0.4), \(min(400, keys.count)) passage sets:")
        print("| answer | flagged |")
        print("|---|---|")
        for (name, value) in counts.sorted(by: { $0.key < $1.key }) {
            print(String(format: "| %@ | %d/%d (%.1f%%) |", name, value.flagged, value.total, 100 * Double(value.flagged) / Double(max(1, value.total))))
        }
    }

    // MARK: - Time per answer

    /// Answers of about 250 words with [n] markers and a closing courtesy, against the 6
    /// passages of an item, scored whole on one thread with the embedder called for real:
    /// grounded answers (paraphrase sentences, mostly settled by their words) and ungrounded
    /// ones (other stories' sentences, every one sent to the embedding with its candidate
    /// passages' sentences), the worst case.
    private func timeAnswers(items: [GroundednessItem], embedder: SentenceEmbedder, cache: [String: [Float]]) throws {
        let withEmbedder = GroundednessScorer(embed: { embedder.embed($0) })
        let wordsOnly = GroundednessScorer()
        print("\ntime per answer (\(answers) answers of ~250 words, 6 passages, one thread, release):")
        print("| answers | scorer | p50 ms | p95 ms | mean ms | sentences embedded per answer |")
        print("|---|---|---|---|---|---|")
        for kind in ["paraphrase", "other_story"] {
            let pool = items.filter { $0.kind == kind }
            // A grounded answer's sentences paraphrase its own six passages (cited correctly);
            // an ungrounded one's come from other stories.
            var bySource: [String: [String]] = [:]
            for item in items where item.kind == "paraphrase" {
                if let source = item.passage { bySource[item.passages[source], default: []].append(item.sentence) }
            }
            var made: [(String, [String])] = []
            var cursor = 0
            for answerIndex in 0..<answers {
                let passages = pool[(answerIndex * 37) % pool.count].passages
                let own = passages.enumerated().flatMap { index, passage in (bySource[passage] ?? []).map { ($0, index) } }
                var words = 0
                var sentences: [String] = []
                while words < 250 {
                    let (sentence, cites) = kind == "paraphrase" && !own.isEmpty
                        ? own[cursor % own.count] : (pool[cursor % pool.count].sentence, cursor % 6)
                    cursor += 1
                    sentences.append(String(sentence.dropLast()) + " [\(cites + 1)].")
                    words += sentence.split(separator: " ").count
                }
                sentences.append("I hope this helps.")
                made.append((sentences.joined(separator: " "), passages))
            }
            _ = withEmbedder.score(answer: made[0].0, passages: made[0].1)  // OpenBLAS's first-call setup
            for (name, scorer) in [("with embedder", withEmbedder), ("words only", wordsOnly)] {
                var times: [Double] = []
                var consulted = 0
                for (answer, passages) in made {
                    let start = DispatchTime.now().uptimeNanoseconds
                    let result = scorer.score(answer: answer, passages: passages)
                    times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                    consulted += result.sentences.filter { $0.semantic != nil }.count
                }
                times.sort()
                print(String(format: "| %@ | %@ | %.1f | %.1f | %.1f | %.1f |", kind == "paraphrase" ? "grounded" : "ungrounded", name,
                             times[times.count / 2], times[min(times.count - 1, times.count * 95 / 100)],
                             times.reduce(0, +) / Double(times.count), Double(consulted) / Double(made.count)))
            }
        }
    }

    /// A passage's sentences of three words or more, split as the scorer splits them.
    static func sentences(of passage: String) -> [String] {
        let scalars = Array(passage.unicodeScalars)
        return SentenceSplitter.sentences(in: scalars).compactMap { span in
            var text = String.UnicodeScalarView()
            text.append(contentsOf: scalars[span.start..<span.end])
            let sentence = String(text)
            return sentence.split(separator: " ").count >= 3 ? sentence : nil
        }
    }

    // MARK: - Copyright

    private func compareCopyright() throws {
        let cases = try Self.readLines(copyright, as: CopyrightCase.self)
        guard !cases.isEmpty else { return }
        let exact = CopyrightCheck()
        let checks: [(String, (String, [String]) -> CopyrightFinding?)] = [
            ("exact 5-char shingles", { exact.check($0, passages: $1) }),
            ("MinHash 128, stride 10", { CopyrightMinHashCheck(permutations: 128, stride: 10).check($0, passages: $1) }),
            ("MinHash 64, stride 25", { CopyrightMinHashCheck(permutations: 64, stride: 25).check($0, passages: $1) }),
        ]
        var decisions: [[Bool]] = []
        let judged = cases.filter { $0.expected != nil }.count
        print("\ncopyright: \(cases.count) outputs against 6 passages each (\(cases.filter { $0.expected == 1 }.count) of \(judged) judged ones should be flagged)")
        let kinds = ["verbatim_450", "near_verbatim_450", "verbatim_300", "same_words_reordered", "other_text", "close_rewording"]
        print("| method | µs per check | correct | " + kinds.map { "\($0) flagged" }.joined(separator: " | ") + " |")
        print("|---|---|---|" + kinds.map { _ in "---|" }.joined())
        for (name, check) in checks {
            var flagged: [Bool] = []
            let start = DispatchTime.now().uptimeNanoseconds
            for item in cases { flagged.append(check(item.output, item.passages) != nil) }
            let micros = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3 / Double(cases.count)
            decisions.append(flagged)
            let correct = zip(cases, flagged).filter { $0.expected != nil && ($0.expected == 1) == $1 }.count
            let perKind = kinds.map { kind -> String in
                let these = zip(cases, flagged).filter { $0.0.kind == kind }
                return "\(these.filter { $0.1 }.count)/\(these.count)"
            }
            print(String(format: "| %@ | %.0f | %d/%d | ", name, micros, correct, judged) + perKind.joined(separator: " | ") + " |")
        }
        for index in 1..<decisions.count {
            let agree = zip(decisions[0], decisions[index]).filter { $0 == $1 }.count
            print("agreement of \(checks[index].0) with exact shingles: \(agree)/\(cases.count)")
        }
        let similarities = cases.compactMap { exact.check($0.output, passages: $0.passages)?.similarity }
        if let low = similarities.min() { print(String(format: "lowest similarity among exact findings: %.3f", low)) }
    }

    // MARK: - Input

    struct GroundednessItem: Decodable {
        var passages: [String]
        var sentence: String
        var label: Int
        var kind: String
        var source: String?
        /// Index of the passage the sentence was drawn from.
        var passage: Int?
    }

    struct CopyrightCase: Decodable {
        var passages: [String]
        var output: String
        /// 1 should be flagged, 0 should not, nil reported only.
        var expected: Int?
        var kind: String
    }

    static func readLines<T: Decodable>(_ path: String, as type: T.Type) throws -> [T] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("cannot read \(path); make it with scripts/make-groundedness-set.py (scripts/bench-groundedness.sh does)")
        }
        let decoder = JSONDecoder()
        return try data.split(separator: UInt8(ascii: "\n")).map { try decoder.decode(T.self, from: Data($0)) }
    }

    static func dot(_ a: [Float], _ b: [Float]) -> Float {
        var sum: Float = 0
        for i in a.indices { sum += a[i] * b[i] }
        return sum
    }
}
