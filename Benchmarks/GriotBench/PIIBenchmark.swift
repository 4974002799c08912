import ArgumentParser

// Placeholder: the pii benchmark lands with its stage's branch.
struct PIIBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pii", abstract: "The pii stage, measured (not yet built).")

    func run() async throws {
        throw ValidationError("not built yet")
    }
}
