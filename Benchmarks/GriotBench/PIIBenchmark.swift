import ArgumentParser
import Foundation
@_spi(Benchmark) import GriotSafety
import GriotText

/// The PII scrubber, measured: span-level scores on the labelled Faker set (exact and overlap
/// precision and recall per type, the full-mask rate per type and format, over-masking per
/// hard-negative kind), throughput on one thread, and per-call time on single sentences; the
/// same patterns run by NSRegularExpression, and optionally scrubadub, on the same texts.
struct PIIBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pii",
        abstract: "PII scrubber accuracy and MB/s on pii-eval/pii_faker_seed905.jsonl, with peers.",
        discussion: "`pii` alone scores whole texts; `pii crafted` the crafted formats; `pii end-to-end` what a client of griot serve receives.",
        subcommands: [PIICraftedBenchmark.self, PIIEndToEndBenchmark.self])

    @Option(help: "The shared data folder (holds pii-eval/).")
    var data = "../shared/data"

    @Option(help: "The labelled file inside the data folder.")
    var file = "pii-eval/pii_faker_seed905.jsonl"

    @Option(help: "Timed passes over all texts; the fastest counts.")
    var passes = 15

    @Option(help: "A Python with scrubadub 2.0.1 (scripts/bench-pii.sh sets one up); that peer is skipped without it.")
    var peerPython: String?

    @Option(help: "The scrubadub peer script.")
    var peerScript = "Benchmarks/peers/pii_scrubadub.py"

    @Flag(help: "Print every missed gold span and every masked negative.")
    var verbose = false

    func run() async throws {
        let url = URL(fileURLWithPath: data).appendingPathComponent(file)
        let records = try PIIRecord.load(url)
        let texts = records.map(\.text)
        let bytes = texts.reduce(0) { $0 + $1.utf8.count }
        print(String(format: "%@: %d texts, %d gold spans, %d hard negatives, %.3f MB",
                     file, records.count, records.reduce(0) { $0 + $1.spans.count },
                     records.reduce(0) { $0 + $1.negatives.count }, Double(bytes) / 1e6))

        let scrubber = try PIIScrubber()
        let ours = records.map { scrubber.matches(in: $0.text) }
        let score = PIIScore(records: records, predictions: ours)
        print("\n== griot PIIScrubber (PCRE2 JIT) ==")
        score.printReport(verbose: verbose)

        let peer = try FoundationRegexPeer(scrubber: scrubber)
        let theirs = records.map { peer.matches(in: $0.text) }
        let agree = zip(ours, theirs).filter { $0 == $1 }.count
        print(String(format: "\nNSRegularExpression peer (same patterns, same checks): same matches on %d of %d texts",
                     agree, records.count))

        print("\n== speed, one thread, best of \(passes) passes ==")
        let oursSeconds = best(of: passes) { texts.reduce(0) { $0 + scrubber.matches(in: $1).count } }
        let peerSeconds = best(of: passes) { texts.reduce(0) { $0 + peer.matches(in: $1).count } }
        let oursMBs = Double(bytes) / oursSeconds / 1e6
        let peerMBs = Double(bytes) / peerSeconds / 1e6
        print(String(format: "griot PCRE2 JIT:           %8.1f MB/s  (%.2f ms a pass)", oursMBs, oursSeconds * 1000))
        print(String(format: "NSRegularExpression peer:  %8.1f MB/s  (%.2f ms a pass)", peerMBs, peerSeconds * 1000))
        print(String(format: "ours / NSRegularExpression: %.1fx", oursMBs / peerMBs))
        let scrubSeconds = best(of: passes) { texts.reduce(0) { $0 + scrubber.scrub($1).masked.count } }
        print(String(format: "griot scrub (mask and rebuild the text): %.1f MB/s", Double(bytes) / scrubSeconds / 1e6))

        // The streaming path: one call per sentence of a reply.
        let sentences = texts.flatMap(Self.sentences(of:))
        let near100 = sentences.filter { (80...120).contains($0.utf8.count) }
        // Two fixed 100-byte sentences: the common case (no digit, no "@") and one with a phone.
        let plain = ["We walked the levee every Sunday after church, and Grandmother sang the old hymns the whole way home."]
        let withPhone = ["You could ring Mama at (412) 555-0187, and she picked up each evening after supper at the farmhouse."]
        for (name, set) in [("all sentences of the set", sentences), ("sentences of 80-120 bytes", near100),
                            ("a 100-byte sentence, no digit or @", plain), ("a 100-byte sentence with a phone", withPhone)] {
            let set = set.count < 100 ? Array(repeating: set, count: 1000).flatMap { $0 } : set
            let setBytes = set.reduce(0) { $0 + $1.utf8.count }
            let seconds = best(of: passes) { set.reduce(0) { $0 + scrubber.matches(in: $1).count } }
            let perCall = seconds / Double(set.count) * 1e6
            print(String(format: "per call, %@ (%d, mean %.0f bytes): %.2f µs a call, %.2f µs per 100 bytes", name,
                         set.count, Double(setBytes) / Double(set.count), perCall, perCall * 100 * Double(set.count) / Double(setBytes)))
        }

        guard let peerPython else {
            print("\nscrubadub skipped: pass --peer-python (scripts/bench-pii.sh sets up scrubadub 2.0.1 in a venv)")
            return
        }
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("griot-bench-pii-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: input) }
        try JSONSerialization.data(withJSONObject: texts).write(to: input)
        let result = try PeerProcess.object(python: peerPython, script: peerScript,
                                            arguments: ["--texts", input.path, "--passes", "2"])
        guard let seconds = result["seconds"] as? Double, let found = result["matches"] as? [[[String: Any]]] else {
            throw ValidationError("the scrubadub peer gave no results; run it alone: \(peerPython) \(peerScript)")
        }
        let scrubadub = found.map { perText in
            perText.compactMap { item -> PIIMatch? in
                guard let start = item["start"] as? Int, let end = item["end"] as? Int, let kind = item["type"] as? String,
                      let type = PIIType(rawValue: kind) else { return nil }
                return PIIMatch(type: type, range: start..<end, value: "")
            }
        }
        print("\n== scrubadub \(result["version"] as? String ?? "?") (default detectors, mapped to our types) ==")
        PIIScore(records: records, predictions: scrubadub).printReport(verbose: false)
        let scrubadubMBs = Double(bytes) / seconds / 1e6
        print(String(format: "scrubadub: %.3f MB/s; ours / scrubadub: %.0fx", scrubadubMBs, oursMBs / scrubadubMBs))
    }

    /// The fastest of `passes` runs, in seconds; the body's result is kept alive.
    func best(of passes: Int, _ body: () -> Int) -> Double {
        var fastest = Double.infinity
        var sink = 0
        for _ in 0..<max(1, passes) {
            let start = ContinuousClock.now
            sink &+= body()
            fastest = min(fastest, (ContinuousClock.now - start).seconds)
        }
        if sink == -1 { print(sink) }
        return fastest
    }

    /// Splits at ". ", "? ", "! " and line breaks, the way a streamed reply reaches the scrubber.
    static func sentences(of text: String) -> [String] {
        var result: [String] = []
        var current = ""
        var previous: Character = " "
        for character in text {
            if character == " " && (previous == "." || previous == "?" || previous == "!") {
                result.append(current)
                current = ""
            } else {
                current.append(character)
            }
            previous = character
        }
        if !current.isEmpty { result.append(current) }
        return result
    }
}

/// One labelled text of the set.
struct PIIRecord: Decodable {
    struct Span: Decodable { var start: Int; var end: Int; var type: String; var value: String; var format: String? }
    struct Negative: Decodable { var start: Int; var end: Int; var kind: String; var value: String }
    var id: String
    var text: String
    var spans: [Span]
    var negatives: [Negative]

    static func load(_ url: URL) throws -> [PIIRecord] {
        guard let contents = try? String(contentsOf: url, encoding: .utf8) else {
            throw ValidationError("cannot read \(url.path); pass --data with the folder that holds pii-eval/")
        }
        let decoder = JSONDecoder()
        return try contents.split(separator: "\n").map { try decoder.decode(PIIRecord.self, from: Data($0.utf8)) }
    }
}

/// The set's scoring rules (its README): exact and overlap per type, full mask (every
/// non-space character of a gold span covered by any prediction), over-masking (a negative
/// overlapped by any prediction). Offsets are UTF-16, equal to the file's code points here.
struct PIIScore {
    struct Tally { var hit = 0; var total = 0
        var rate: Double { total == 0 ? .nan : Double(hit) / Double(total) }
        var text: String { String(format: "%.4f (%d/%d)", rate, hit, total) }
    }
    var exact: [String: Tally] = [:]          // recall side: gold spans matched exactly
    var overlapRecall: [String: Tally] = [:]
    var overlapPrecision: [String: Tally] = [:]
    var exactPrecision: [String: Tally] = [:]
    var fullMask: [String: Tally] = [:]
    var fullMaskByFormat: [String: Tally] = [:]
    var negatives: [String: Tally] = [:]
    var misses: [String] = []
    var overMasked: [String] = []

    init(records: [PIIRecord], predictions: [[PIIMatch]]) {
        for (record, found) in zip(records, predictions) {
            let units = Array(record.text.utf16)
            for span in record.spans {
                let gold = span.start..<span.end
                exact[span.type, default: Tally()].total += 1
                overlapRecall[span.type, default: Tally()].total += 1
                fullMask[span.type, default: Tally()].total += 1
                let format = span.type + "/" + (span.format ?? "-")
                fullMaskByFormat[format, default: Tally()].total += 1
                if found.contains(where: { $0.type.rawValue == span.type && $0.range == gold }) { exact[span.type]!.hit += 1 }
                if found.contains(where: { $0.type.rawValue == span.type && $0.range.overlaps(gold) }) {
                    overlapRecall[span.type]!.hit += 1
                }
                let covered = gold.allSatisfy { index in
                    units[index] == 0x20 || units[index] == 0x0A || found.contains { $0.range.contains(index) }
                }
                if covered {
                    fullMask[span.type]!.hit += 1
                    fullMaskByFormat[format]!.hit += 1
                } else {
                    misses.append("\(format) \(span.value.debugDescription) in \(record.id)")
                }
            }
            for match in found {
                let type = match.type.rawValue
                overlapPrecision[type, default: Tally()].total += 1
                exactPrecision[type, default: Tally()].total += 1
                if record.spans.contains(where: { $0.type == type && match.range.overlaps($0.start..<$0.end) }) {
                    overlapPrecision[type]!.hit += 1
                }
                if record.spans.contains(where: { $0.type == type && match.range == $0.start..<$0.end }) {
                    exactPrecision[type]!.hit += 1
                }
            }
            for negative in record.negatives {
                negatives[negative.kind, default: Tally()].total += 1
                if let hit = found.first(where: { $0.range.overlaps(negative.start..<negative.end) }) {
                    negatives[negative.kind]!.hit += 1
                    overMasked.append("\(negative.kind) \(negative.value.debugDescription) masked as \(hit.type.rawValue) in \(record.id)")
                }
            }
        }
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    static func sum(_ tallies: [String: Tally]) -> Tally {
        tallies.values.reduce(into: Tally()) { $0.hit += $1.hit; $0.total += $1.total }
    }

    func printReport(verbose: Bool) {
        print("type          exact P   exact R   overlap P overlap R full mask")
        for type in PIIType.allCases.map(\.rawValue) {
            print(String(format: "%@ %.4f    %.4f    %.4f    %.4f    %@", Self.pad(type, 13),
                         exactPrecision[type]?.rate ?? .nan, exact[type]?.rate ?? .nan,
                         overlapPrecision[type]?.rate ?? .nan, overlapRecall[type]?.rate ?? .nan,
                         fullMask[type]?.text ?? "-"))
        }
        print(String(format: "%@ %.4f    %.4f    %.4f    %.4f    %@", Self.pad("micro", 13), Self.sum(exactPrecision).rate,
                     Self.sum(exact).rate, Self.sum(overlapPrecision).rate, Self.sum(overlapRecall).rate,
                     Self.sum(fullMask).text))
        let weak = fullMaskByFormat.filter { $0.value.hit < $0.value.total }.sorted { $0.key < $1.key }
        print("formats below 1.0 full mask: " + (weak.isEmpty ? "none" : weak.map { "\($0.key) \($0.value.text)" }.joined(separator: ", ")))
        print("over-masking: \(Self.sum(negatives).text) of hard negatives")
        for (kind, tally) in negatives.sorted(by: { $0.key < $1.key }) {
            print("  \(Self.pad(kind, 22)) \(tally.text)")
        }
        if verbose {
            misses.forEach { print("missed: \($0)") }
            overMasked.forEach { print("over-masked: \($0)") }
        }
    }
}

/// The peer: the scrubber's own patterns run by Foundation's NSRegularExpression (ICU), with the
/// same walk back from each "@" and the same checks on every candidate, so the difference is the
/// regex engine (and its UTF-16 strings).
struct FoundationRegexPeer {
    let scrubber: PIIScrubber
    let numeric: NSRegularExpression
    let email: NSRegularExpression

    init(scrubber: PIIScrubber) throws {
        self.scrubber = scrubber
        numeric = try NSRegularExpression(pattern: PIIPatterns.numeric)
        email = try NSRegularExpression(pattern: PIIPatterns.email)
    }

    func matches(in original: String) -> [PIIMatch] {
        // The same normalised view the scrubber reads, so the engines see the same bytes.
        let view = NormalizedText(original, options: .pii)
        let text = view.text
        let string = text as NSString
        let whole = NSRange(location: 0, length: string.length)
        // UTF-16 offsets to UTF-8 byte offsets, for the shared checks.
        func bytes(_ range: NSRange) -> Range<Int> {
            guard let swiftRange = Range(range, in: text) else { return 0..<0 }
            let start = text.utf8.distance(from: text.startIndex, to: swiftRange.lowerBound)
            return start..<start + text.utf8.distance(from: swiftRange.lowerBound, to: swiftRange.upperBound)
        }
        let numericCandidates = numeric.matches(in: text, range: whole).map { result in
            (range: bytes(result.range), isAddress: result.range(at: 1).location != NSNotFound)
        }
        var emailCandidates: [Range<Int>] = []
        var searchFrom = 0
        while searchFrom < string.length {
            let at = string.range(of: "@", options: .literal, range: NSRange(location: searchFrom, length: string.length - searchFrom))
            guard at.location != NSNotFound else { break }
            searchFrom = at.location + 1
            let atByte = bytes(at).lowerBound
            let startByte: Int? = text.utf8.withContiguousStorageIfAvailable { PIIScrubber.emailStart(before: atByte, in: $0) } ?? nil
            guard let startByte else { continue }
            let startUTF16 = at.location - (atByte - startByte)  // the local part is ASCII
            let found = email.firstMatch(in: text, options: .anchored,
                                         range: NSRange(location: startUTF16, length: string.length - startUTF16))
            if let found {
                emailCandidates.append(bytes(found.range))
                searchFrom = max(searchFrom, found.range.location + found.range.length)
            }
        }
        return scrubber.matches(in: view, numeric: numericCandidates, emails: emailCandidates)
    }
}
