import ArgumentParser
import Foundation
import GriotSafety

/// The scrubber on the crafted formats (`evals/pii/crafted-*.txt`): values dressed to slip past
/// (en dashes, full-width and Arabic-Indic digits, zero-width characters, "at … dot", spelled
/// digits, European phones and addresses) and look-alikes that must stay. Scored with the same
/// rules as pii-eval; the held-out half is run without `--verbose`, so its misses are not read.
struct PIICraftedBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crafted",
        abstract: "Full mask and over-masking on the crafted-format files (tuning and held-out).")

    @Option(parsing: .upToNextOption, help: "Crafted files to score, each on its own.")
    var files = ["evals/pii/crafted-tuning.txt", "evals/pii/crafted-heldout.txt",
                   "evals/pii/addresses-tuning.txt", "evals/pii/addresses-heldout.txt"]

    // Not `--verbose`: the parent command `pii` has a flag of that name and would take it.
    @Flag(name: .customLong("show-misses"), help: "Print every miss and every masked look-alike (the tuning file only).")
    var verbose = false

    func run() throws {
        let scrubber = try PIIScrubber()
        for file in files {
            let records = try PIICraftedSet.load(URL(fileURLWithPath: file))
            print("\n== \(file): \(records.count) texts, \(records.reduce(0) { $0 + $1.spans.count }) values, "
                  + "\(records.reduce(0) { $0 + $1.negatives.count }) look-alikes ==")
            let predictions = records.map { scrubber.matches(in: $0.text) }
            let score = PIIScore(records: records, predictions: predictions)
            score.printReport(verbose: false)
            if verbose {
                score.misses.forEach { print("missed: \($0)") }
                score.overMasked.forEach { print("over-masked: \($0)") }
            }
            let formats = score.fullMaskByFormat.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.hit)/\($0.value.total)" }
            print("by format: " + formats.joined(separator: ", "))
        }
    }
}
