import ArgumentParser

// Placeholder: the moderation benchmark lands with its stage's branch.
struct ModerationBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "moderation", abstract: "The moderation stage, measured (not yet built).")

    func run() async throws {
        throw ValidationError("not built yet")
    }
}
