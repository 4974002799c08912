import ArgumentParser

// Placeholder: the groundedness benchmark lands with its stage's branch.
struct GroundednessBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "groundedness", abstract: "The groundedness stage, measured (not yet built).")

    func run() async throws {
        throw ValidationError("not built yet")
    }
}
